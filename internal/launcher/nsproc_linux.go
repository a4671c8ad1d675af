//go:build linux

package launcher

import (
	"github.com/jp-policy/jp-policy/internal/nsroot"
	"github.com/jp-policy/jp-policy/internal/plan/landlock"
)

// nsBaseline is the baseline as Landlock rules inside the namespaced
// root, where /proc is a procfs of the tool's own PID namespace
// (internal/nsroot): it lists only the tool's processes, so the whole of
// it is granted read-only in place of /proc/self. The fast path's rule on
// /proc/self is resolved by the launcher and names only the launcher's
// process; a child of the tool could not read its own /proc entry, nor
// /proc/cpuinfo or /proc/meminfo (ps, Node's os.cpus()). Other processes'
// environ, mem and fds stay behind the ptrace access checks.
func nsBaseline(base []landlock.PathRule) []landlock.PathRule {
	out := make([]landlock.PathRule, 0, len(base))
	for _, r := range base {
		if r.Path == "/proc/self" {
			r.Path = "/proc"
		}
		out = append(out, r)
	}
	return out
}

// closeHandedBack closes the listeners stage 2 handed back once the
// proxy has taken what it needs (net.FileListener duplicates the
// descriptor), on success and on failure alike.
func closeHandedBack(child *nsroot.Child) {
	for _, f := range child.Listeners {
		f.Close()
	}
	child.Listeners = nil
}
