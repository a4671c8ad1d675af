//go:build linux

package launcher

import (
	"errors"
	"runtime"
	"slices"

	"github.com/jp-policy/jp-policy/internal/emit/landlock"
)

// Exec replaces the launcher with the planned command under Landlock. It
// returns only on failure.
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
	sb, err := sandboxFor(p.Manifest, fs, p.ABI, p.Filter)
	if err != nil {
		return err
	}
	err = ExecLocked(sb, p.Path, p.Argv, p.Env)
	if failed, ok := errors.AsType[*ExecFailed](err); ok {
		return &ExecError{Path: p.Path, Err: failed.Err, Hint: p.grantHint()}
	}
	return err
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
