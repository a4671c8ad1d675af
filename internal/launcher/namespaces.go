package launcher

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/jp-policy/jp-policy/internal/netproxy"
	"github.com/jp-policy/jp-policy/internal/nsroot"
	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/plan/landlock"
	"github.com/jp-policy/jp-policy/internal/seccomp"
)

// NamespacesError refuses `exec --namespaces` where the namespaced path
// cannot run: no plan in the manifest (compiled by an older jp-policy),
// a tool with a TCP bind grant (a private network namespace would cut its
// listener off), or no unprivileged user namespaces on this machine.
type NamespacesError struct{ Reason string }

func (e *NamespacesError) Error() string {
	return "exec --namespaces: " + e.Reason
}

// NSMode is how exec chooses between the namespaced and the fast path.
type NSMode int

const (
	// NSAuto (the default) takes the namespaced path exactly when a part
	// of the policy needs it (landlock.NamespaceNeeds, a granted Unix
	// socket) and falls back to the fast path where user namespaces are
	// unavailable, refusing unless --best-effort when that weakens what
	// the policy promises.
	NSAuto NSMode = iota
	// NSRequire (--namespaces) always takes the namespaced path and
	// refuses where it cannot.
	NSRequire
	// NSOff (--no-namespaces) always takes the fast path, with the same
	// refusal as an unavailable namespace for what that weakens.
	NSOff
)

// namespacedOK says whether this manifest can run on the namespaced path
// when --namespaces requires it.
func namespacedOK(m *landlock.Manifest) error {
	if m.Namespace == nil {
		return &NamespacesError{Reason: "the manifest has no namespace plan; run `jp-policy compile`"}
	}
	if ok, why := nsroot.Available(); !ok {
		return &NamespacesError{Reason: fmt.Sprintf("unprivileged user namespaces are unavailable here (%s); run without --namespaces for Landlock and seccomp alone", why)}
	}
	return nil
}

// namespaceNeeds is what of the plan's policy only the namespaced path
// enforces exactly: the manifest's needs, plus a Unix socket the policy
// grants that exists now (the fast path's seccomp filter refuses every
// socket(AF_UNIX); in the namespaced root only granted paths exist and
// the network namespace, which holds the abstract names, is private).
func namespaceNeeds(m *landlock.Manifest) []landlock.NSNeed {
	needs := landlock.NamespaceNeeds(m)
	if m.Namespace == nil || len(m.Net.BindTCP) > 0 {
		return needs
	}
	var socks []string
	for _, b := range m.Namespace.Binds {
		if fi, err := os.Lstat(b.Path); err == nil && fi.Mode()&os.ModeSocket != 0 {
			socks = append(socks, b.Path)
		}
	}
	if len(socks) > 0 {
		needs = append(needs, landlock.NSNeed{
			ID:      "ns.unix",
			What:    "granted Unix sockets: " + strings.Join(socks, ", "),
			Exact:   "socket(AF_UNIX) allowed: only the granted socket paths exist, and abstract names belong to the private network namespace",
			Without: "socket(AF_UNIX) refused by the seccomp filter, so connecting to them fails",
		})
	}
	return needs
}

// choosePath decides, for a Linux plan, between the namespaced path and
// the fast one (o.NSMode), and returns the seccomp spec to build. Needs
// the fast path would weaken become Degradations (refused unless
// --best-effort, like an old Landlock ABI).
func (p *Plan) choosePath(o *Options, spec seccomp.Spec) (seccomp.Spec, error) {
	m := p.Manifest
	if o.NSMode == NSRequire {
		if err := namespacedOK(m); err != nil {
			return spec, err
		}
		p.NSNeeds = namespaceNeeds(m)
		return p.namespaced(o, spec), nil
	}
	if m.Namespace == nil {
		return spec, nil // an older manifest: the fast path, as it was compiled for
	}
	p.NSNeeds = namespaceNeeds(m)
	if len(p.NSNeeds) == 0 {
		return spec, nil
	}
	why := "--no-namespaces"
	if o.NSMode == NSAuto {
		ok, reason := nsroot.Available()
		if ok {
			return p.namespaced(o, spec), nil
		}
		why = "no unprivileged user namespaces here (" + reason + ")"
	}
	p.NSUnavailable = why
	p.Degraded = append(p.Degraded, fallbackDegradations(p.NSNeeds, why)...)
	return spec, nil
}

// fallbackDegradations lists the needs the fast path enforces less
// strictly than the policy.
func fallbackDegradations(needs []landlock.NSNeed, why string) []Degradation {
	var out []Degradation
	for _, n := range needs {
		if n.Weaker {
			out = append(out, Degradation{
				Clause: plan.Clause{ID: n.ID, What: n.What, Status: plan.Degraded},
				Reason: why + ": " + n.Without,
			})
		}
	}
	return out
}

// namespaced switches p to the namespaced path and returns its seccomp
// spec. In auto mode it keeps the fast plan aside (p.fallback), for a
// Start that finds user namespaces refused only when it tries.
func (p *Plan) namespaced(o *Options, spec seccomp.Spec) seccomp.Spec {
	if o.NSMode == NSAuto {
		fb := *p
		fb.Env = slices.Clone(p.Env)
		p.fallback = &fb
	}
	p.Namespaced = true
	// Read-only binds answer EROFS outside the write grants, so the
	// metadata calls need no blanket refusal there.
	spec.Metadata = true
	// Paths outside the grants do not exist in the namespaced root.
	spec.XattrRead = true
	if p.privateNet() {
		// Only granted socket paths exist, and the abstract names belong
		// to the private network namespace.
		spec.Unix = true
		if p.proxied() {
			// Only loopback exists in the tool's network namespace: TCP
			// to the proxy and the egress listeners, and UDP to the
			// egress resolver, is all it reaches, and listening there
			// reaches nobody outside.
			spec.Inet, spec.Listen = seccomp.InetTCPUDP, true
			p.LogNet = o.LogNet
			p.Env = withProxy(p.Env)
		}
	}
	return spec
}

// privateNet reports whether the namespaced path gives the tool its own
// network namespace: always, except for a TCP bind grant, whose listener
// must stay reachable from the host (then Landlock's port rules are the
// network layer, as on the fast path).
func (p *Plan) privateNet() bool { return len(p.Manifest.Net.BindTCP) == 0 }

// ProxyAddr is where the filtering proxy listens inside the tool's
// network namespace. The namespace is private and holds only loopback, so
// a fixed port is always free, and the environment can name it before
// the listener exists.
const (
	ProxyPort = 3128
	ProxyAddr = "127.0.0.1:3128" // ProxyPort on loopback (TestProxyAddr)
)

// withProxy points HTTP clients, curl, git, Python and SOCKS-aware tools
// at the proxy: netproxy.Env's variables replace any of the same name.
func withProxy(env []string) []string { return withProxyAt(env, ProxyAddr) }

// withProxyAt is withProxy for a proxy at addr.
func withProxyAt(env []string, addr string) []string {
	set := netproxy.Env(addr)
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.ContainsFunc(set, func(s string) bool { return strings.HasPrefix(s, k+"=") }) {
			out = append(out, kv)
		}
	}
	return append(out, set...)
}

// proxied reports whether the tool has net rules the proxy must serve.
func (p *Plan) proxied() bool {
	return len(p.Manifest.Net.ConnectTCP) > 0 && p.privateNet()
}

// allExist reports whether every path exists as a file or directory,
// not a symlink (compile bound none: a link swapped in since must not
// take the bind elsewhere).
func allExist(paths []string) bool {
	for _, p := range paths {
		if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink != 0 {
			return false
		}
	}
	return true
}
