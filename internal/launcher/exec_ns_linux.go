//go:build linux

package launcher

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	"github.com/jp-policy/jp-policy/internal/execplan"
	"github.com/jp-policy/jp-policy/internal/nsroot"
	"github.com/jp-policy/jp-policy/internal/plan/landlock"
)

// The namespaced path: the launcher stays as a small supervisor (it must
// wait to pass on the exit status and forward signals), and stage 2 of
// package nsroot, a re-exec of this binary in private user, mount, IPC
// and network namespaces, builds a root holding only the baseline and the
// tool's grants (read-only unless a rule grants a write capability; masks
// over narrowed paths; .git, .jp and .jp.toml
// read-only inside writable binds), then calls finalizeNS, which applies
// Landlock and the seccomp filter on its exec thread, as the fast path
// does, before it execs the command (stage2_linux.go).

// execNamespaced runs p through nsroot and returns the command's status
// as a *ChildExit (or the setup's failure).
func execNamespaced(p *Plan) error {
	m := p.Manifest
	scans := newGitScans(m.Namespace)
	gp, entries, cut := gitProtected(m.Namespace, scans)
	gitEntries := gitEntryIDs(entries)
	if err := p.gitScanCut(cut); err != nil {
		return err
	}
	ns := m.Namespace.WithProtected(gp)
	newGit := absentGit(ns)
	spec := &nsroot.Spec{
		Path: p.Path, Argv: p.Argv, Env: p.Env,
		Dev: true, Proc: true, Net: p.privateNet(),
		Tmpfs: []string{"/tmp"},
		Masks: ns.Masks,
	}
	var roots []string
	for _, b := range m.Baseline {
		if strings.HasPrefix(b.Path, "/dev/") || b.Path == "/dev" || strings.HasPrefix(b.Path, "/proc") {
			continue // a minimal /dev and /proc come from nsroot
		}
		spec.Binds = append(spec.Binds, nsroot.Bind{Src: b.Path, Dst: b.Path, Optional: b.Optional})
		roots = append(roots, b.Path)
	}
	// The read-only rules the binds enforce exactly (Manifest.Bound) let
	// Landlock keep the writable grants around them whole (BoundFS), but
	// only if every one of them is bound: each must exist now, and its
	// bind is then required, so a path that vanishes before stage 2
	// binds it fails the run instead of leaving it to the whole grant.
	bound := m.BoundFS != nil && allExist(m.Bound)
	for _, b := range ns.Binds {
		required := bound && slices.Contains(m.Bound, b.Path)
		spec.Binds = append(spec.Binds, nsroot.Bind{Src: b.Path, Dst: b.Path, RW: b.RW, Optional: !required})
		roots = append(roots, b.Path)
	}
	for _, pp := range ns.Protected {
		spec.Binds = append(spec.Binds, nsroot.Bind{Src: pp, Dst: pp, Optional: true})
	}
	if cwd, err := os.Getwd(); err == nil {
		if real, err := filepath.EvalSymlinks(cwd); err == nil {
			cwd = real
		}
		// The working directory exists in the new root when a bind holds
		// it, or when it lies above one (a directory made for mount
		// points: a workspace whose rules name only src/ and go.mod).
		// Elsewhere the command starts in /.
		for _, r := range roots {
			if cwd == r || strings.HasPrefix(cwd, strings.TrimSuffix(r, "/")+"/") || strings.HasPrefix(r, strings.TrimSuffix(cwd, "/")+"/") {
				spec.Workdir = cwd
				break
			}
		}
	}
	// Landlock inside: with every mask in place, MaskedFS (the split as
	// if the masked rules were absent) so the rest of a narrowed
	// directory keeps its full rights; the masks themselves are mount
	// points no rename or unlink can move.
	fs := m.FS
	switch {
	case bound:
		fs = withoutMasked(m.BoundFS, m.Masks)
	case m.MaskedFS != nil:
		fs = withoutMasked(m.MaskedFS, m.Masks)
	}
	// The private /tmp and TMPDIR (nstmp_linux.go).
	tmpdir, tmpfs, tmpRules := nsTmp(fs)
	spec.Tmpfs = append(spec.Tmpfs, tmpfs...)
	spec.Env = WithVar(slices.Clip(spec.Env), "TMPDIR", tmpdir)
	nsScratchHome(spec, tmpdir, fs) // home_linux.go
	fs = append(append([]landlock.PathRule(nil), fs...), tmpRules...)
	// Stage 2 needs of the manifest only what buildRuleset reads: the
	// baseline, net and scopes. The rest (clause reports, the seccomp
	// spec, the namespace plan) is most of its JSON, and decoding it by
	// reflection in stage 2 cost more than applying Landlock and seccomp.
	mm := &landlock.Manifest{Tool: m.Tool, Baseline: nsBaseline(m.Baseline), Net: m.Net, Scope: m.Scope}
	if p.proxied() {
		// The only TCP endpoint in the namespace is the proxy.
		mm.Net = landlock.Net{Restrict: true, ConnectTCP: []uint16{ProxyPort}, BindTCP: []uint16{}}
		spec.Listen = []string{ProxyAddr}
	}
	var eg *egressRun
	if p.proxied() {
		var err error
		if eg, err = p.planEgress(spec, &mm.Net); err != nil { // egress_linux.go
			return fmt.Errorf("namespaced exec: transparent egress: %w", err)
		}
		defer eg.done()
	}
	// The sandbox is decided here, as kernel bits, and stage 2 only
	// opens its paths inside the new root and applies it.
	sb, err := sandboxFor(mm, fs, p.ABI, p.Filter, p.Trace)
	if err != nil {
		return err
	}
	spec.Extra = execplan.EncodeSandbox(sb)
	spec.Stage2 = ""
	var logw io.WriteCloser
	if p.proxied() && p.LogNet != "" {
		f, err := os.OpenFile(p.LogNet, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return fmt.Errorf("--log-net: %w", err)
		}
		logw = f
		defer f.Close()
	}
	debug.SetGCPercent(100) // a supervisor that may serve a proxy for long
	child, err := nsroot.Start(spec)
	if err != nil {
		// Refused only when trying (a container's seccomp profile,
		// AppArmor): the fast path, under the same rule as a machine
		// whose sysctls say so up front.
		if se, ok := errors.AsType[*nsroot.SetupError](err); ok && se.Step == "exec" && se.Errno != 0 {
			if se.Errno == syscall.ENOENT {
				return &NotFoundError{Name: p.Argv[0], Err: se.Errno, Hint: p.grantHint()}
			}
			return &ExecError{Path: p.Path, Err: se.Errno, Hint: p.grantHint()}
		}
		fb, ferr := p.fallbackFor(err)
		if ferr != nil {
			if ferr == err {
				return fmt.Errorf("namespaced exec: %w", err)
			}
			return ferr
		}
		WarnDegraded(os.Stderr, fb)
		return Exec(fb)
	}
	if p.proxied() {
		srv, err := proxyFor(m.Root, p.NetRules, logw)
		var ln net.Listener
		if err == nil && len(child.Listeners) >= 1 {
			ln, err = net.FileListener(child.Listeners[0])
		}
		if err == nil {
			err = eg.serve(srv, child.Listeners[1:])
		}
		closeHandedBack(child) // FileListener holds its own descriptor
		if err != nil || ln == nil {
			if srv != nil {
				srv.Close()
			}
			child.Kill()
			_, _ = child.Wait()
			return fmt.Errorf("namespaced exec: cannot serve the network proxy: %v", err)
		}
		go func() { _ = srv.Serve(ln) }()
		defer srv.Close()
	}
	code, err := child.Wait()
	if err != nil {
		err = fmt.Errorf("namespaced exec: %w", err)
	}
	quarantineNewGit(newGit)
	if len(cut) == 0 {
		quarantineNewNestedGit(scans, gitEntries)
	}
	return p.afterExit(code, err)
}

// nsTmpRights are the Landlock rights of the private /tmp. A Landlock rule
// on a directory reaches every mount beneath it, and grants beneath /tmp
// (a workspace in /tmp) are bound inside the private tmpfs: a full /tmp
// rule would void Landlock's split there (a read-only rule on a path that
// does not exist yet could be created: attack_ns_tmp.txtar). So /tmp gets
// at most what each path with a rule at or beneath it already has (its
// own rule and its ancestors'; on a file, only file rights count).
func nsTmpRights(fs []landlock.PathRule) landlock.Rights {
	r := tmpRights
	under := func(p, dir string) bool { return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/") }
	for _, x := range fs {
		if !under(x.Path, "/tmp") {
			continue
		}
		var has landlock.Rights
		for _, a := range fs {
			if under(x.Path, a.Path) {
				got, _ := landlock.ParseRights(a.Access)
				has |= got
			}
		}
		if st, err := os.Stat(x.Path); err == nil && !st.IsDir() {
			has |= ^landlock.FileRights // directory rights do not apply to a file
		}
		r &= has
	}
	return r
}

// fallbackFor is the fast plan to run when the namespaced Start reports
// user namespaces unavailable, or the refusal when that would weaken the
// policy without --best-effort.
func (p *Plan) fallbackFor(err error) (*Plan, error) {
	if p.fallback == nil || !errors.Is(err, nsroot.ErrUnavailable) {
		return nil, err
	}
	fb := p.fallback
	why := "no unprivileged user namespaces here (" + err.Error() + ")"
	fb.NSUnavailable = why
	fb.Degraded = append(fb.Degraded, fallbackDegradations(fb.NSNeeds, why)...)
	filter, reason := buildFilter(*fb.Manifest.Seccomp)
	if reason != "" {
		return nil, fmt.Errorf("namespaced exec: %w; and the fast path's seccomp filter cannot be built: %s", err, reason)
	}
	fb.Filter = filter
	if len(fb.Degraded) > 0 && !fb.bestEffort {
		return nil, &UnenforceableError{ABI: fb.ABI, Degraded: fb.Degraded}
	}
	if err := fb.setTmp(false); err != nil {
		return nil, err
	}
	return fb, nil
}
