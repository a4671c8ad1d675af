//go:build linux

package launcher

import (
	"errors"
	"os"
	"runtime"
	"slices"

	"github.com/jp-policy/jp-policy/internal/plan/landlock"
)

// Exec runs the planned command under the sandbox. The fast path
// replaces the launcher with the command (execve in place) and returns
// only on failure; the namespaced path waits for it and returns its
// status as a *ChildExit, through afterExit.
//
// The fast path does not fork and wait: its Landlock ruleset grants
// /proc/self as the launcher resolves it, /proc/<launcher pid>, which is
// the command's own only because execve keeps the pid (a forked command
// could not read its own /proc/self: docs/exec.md).
//
// A Landlock domain and no_new_privs belong to the OS thread that sets
// them and are carried across execve by that thread, which becomes the
// new program's only thread. So instead of restricting every Go runtime
// thread (what libraries do with AllThreadsSyscall, costing a signal
// round-trip per thread), Exec locks its goroutine to one thread,
// restricts that thread and execs from it.
func Exec(p *Plan) error {
	// Descriptors first: the /proc fallback needs /proc, which the
	// sandbox may not grant.
	if err := SetCloexecAbove2(); err != nil {
		return err
	}
	if p.Namespaced {
		return execNamespaced(p)
	}
	DetachTerminal()
	runtime.LockOSThread()
	// Never unlocked: on failure the process exits, and a restricted
	// thread must not go back to the scheduler's pool.

	// Masks go into this thread's mount namespace before the ruleset is
	// built, so MaskedFS is opened where the masks are. Only when every
	// mask is in place does MaskedFS replace the split.
	fs := p.Manifest.FS
	if p.Masks && p.Manifest.MaskedFS != nil {
		// Any failure (a vanished path, no privilege) leaves the split,
		// which never grants more than the policy; masks already mounted
		// only hide more.
		if ok, _ := applyMasks(p.Manifest.Masks); ok {
			fs = withoutMasked(p.Manifest.MaskedFS, p.Manifest.Masks)
		}
	}
	sb, err := sandboxFor(p.Manifest, fs, p.ABI, p.Filter, p.Trace)
	if err != nil {
		return err
	}
	return p.afterExit(0, ExecLocked(sb, p.Path, p.Argv, p.Env))
}

// afterExit is where every run ends once its command is over or could
// not start: the one place for what exec reports after the command (what
// the policy denied in a failed run, leftover processes). On the
// namespaced path it runs after the command was waited for, with its
// status as code; on the fast path only when execve failed (err). The
// fast path's thread is restricted by then, so the hint is worked out on
// a fresh goroutine, whose thread is not.
func (p *Plan) afterExit(code int, err error) error {
	if failed, ok := errors.AsType[*ExecFailed](err); ok {
		hint := make(chan string)
		go func() { hint <- p.grantHint() }()
		return &ExecError{Path: p.Path, Err: failed.Err, Hint: <-hint}
	}
	if err != nil {
		return err
	}
	return &ChildExit{Code: code, Hints: p.exitHints(code, os.Environ())}
}

// withoutMasked drops grants on the masked paths themselves: opened now,
// they would name the mask (the tmpfs, or /dev/null's inode), not the
// hidden file, and a rule there has nothing left to grant.
func withoutMasked(fs []landlock.PathRule, masks []string) []landlock.PathRule {
	out := make([]landlock.PathRule, 0, len(fs))
	for _, r := range fs {
		if !slices.Contains(masks, r.Path) {
			out = append(out, r)
		}
	}
	return out
}
