package launcher

import (
	"fmt"
	"slices"
	"strings"

	"github.com/jp-policy/jp-policy/internal/emit/landlock"
	"github.com/jp-policy/jp-policy/internal/netproxy"
	"github.com/jp-policy/jp-policy/internal/nsroot"
)

// NamespacesError refuses `exec --namespaces` where the namespaced path
// cannot run: no plan in the manifest (compiled by an older jp-policy),
// a tool with net rules (the filtering proxy is not wired in yet, and a
// private network namespace would cut it off silently), or no
// unprivileged user namespaces on this machine.
type NamespacesError struct{ Reason string }

func (e *NamespacesError) Error() string {
	return "exec --namespaces: " + e.Reason
}

// namespacedOK says whether this manifest can run on the namespaced path
// here.
func namespacedOK(m *landlock.Manifest) error {
	if m.Namespace == nil {
		return &NamespacesError{Reason: "the manifest has no namespace plan; run `jp-policy compile`"}
	}
	if len(m.Net.BindTCP) > 0 {
		return &NamespacesError{Reason: "the tool has a TCP bind grant, which a private network namespace would make unreachable; run without --namespaces"}
	}
	if ok, why := nsroot.Available(); !ok {
		return &NamespacesError{Reason: fmt.Sprintf("unprivileged user namespaces are unavailable here (%s); run without --namespaces for Landlock and seccomp alone", why)}
	}
	return nil
}

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
func withProxy(env []string) []string {
	set := netproxy.Env(ProxyAddr)
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
func (p *Plan) proxied() bool { return len(p.Manifest.Net.ConnectTCP) > 0 }
