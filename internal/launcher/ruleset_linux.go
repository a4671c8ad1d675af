//go:build linux

package launcher

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"

	"github.com/jp-policy/jp-policy/internal/caps"
	"github.com/jp-policy/jp-policy/internal/execplan"
	"github.com/jp-policy/jp-policy/internal/nsroot"
	"github.com/jp-policy/jp-policy/internal/seccomp"

	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// The exec path talks to Landlock through go-landlock's low-level
// syscall package rather than its high-level API: the high-level API
// restricts every thread of the process, while exec restricts only the
// locked thread that will execve (see ExecLocked), which is all the child
// inherits.

// KernelABI returns the running kernel's Landlock ABI version, 0 when
// Landlock is missing or disabled.
func KernelABI() int {
	v, err := llsyscall.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

// Sandbox is what the fast path applies to the exec thread: Landlock
// path and port rules, scopes, and the seccomp program (execplan's type,
// which also carries it to the namespaced path's stage 2).
type Sandbox = execplan.Sandbox

// ruleset is a Landlock ruleset resolved against this machine: every
// path opened, every right masked to what the kernel knows. Building it
// touches the filesystem; applying it is only syscalls.
type ruleset struct {
	attr  llsyscall.RulesetAttr
	paths []llsyscall.PathBeneathAttr
	ports []llsyscall.NetPortAttr
	// clauses[i] names the clause of paths[i], for error messages.
	clauses []string
}

// PathError is a compiled path the exec path could not use.
type PathError struct {
	Clause string
	Path   string
	Err    error
}

func (e *PathError) Error() string {
	if errors.Is(e.Err, unix.ELOOP) {
		return fmt.Sprintf("%s: %s now goes through a symlink, which the compiled policy did not see; refusing (run `jp-policy compile`)", e.Clause, e.Path)
	}
	return fmt.Sprintf("%s: %s: %v; run `jp-policy compile`", e.Clause, e.Path, e.Err)
}

func (e *PathError) Unwrap() error { return e.Err }

// buildRuleset resolves s against this machine (nil, nil when no
// filesystem right is handled: no Landlock, only under --best-effort).
// Rights the kernel does not know are dropped: the caller has already
// refused, or been told --best-effort.
func buildRuleset(s *Sandbox) (*ruleset, error) {
	rs := &ruleset{attr: llsyscall.RulesetAttr{HandledAccessFS: s.HandledFS}}
	if rs.attr.HandledAccessFS == 0 {
		return nil, nil
	}
	rs.paths = make([]llsyscall.PathBeneathAttr, 0, len(s.Baseline)+len(s.FS))
	rs.clauses = make([]string, 0, cap(rs.paths))
	add := func(r *execplan.Rule, follow bool) error {
		mask := r.Access & rs.attr.HandledAccessFS
		if mask == 0 {
			return nil
		}
		// A grant of file rights only is the same on a file and on a
		// directory, so its path's kind does not matter: one open.
		var fd int
		var err error
		dir := false
		if mask&^fileRights == 0 {
			fd, err = OpenPath(r.Path, follow)
		} else {
			fd, dir, err = openRulePath(r.Path, follow)
		}
		if err != nil {
			if errors.Is(err, unix.ENOENT) && r.Optional {
				return nil
			}
			return &PathError{Clause: r.Clause, Path: r.Path, Err: err}
		}
		if !dir {
			mask &= fileRights
		}
		if mask == 0 {
			unix.Close(fd)
			return nil
		}
		rs.paths = append(rs.paths, llsyscall.PathBeneathAttr{AllowedAccess: mask, ParentFd: fd})
		rs.clauses = append(rs.clauses, r.Clause)
		return nil
	}
	noTTY := !stdioIsTerminal()
	for i := range s.Baseline {
		if noTTY && s.Baseline[i].Path == "/dev/tty" {
			// A tool whose standard streams are not a terminal (JP runs
			// tools with pipes) has no business with the controlling
			// terminal: a process it leaves behind could read what the
			// user types to JP next. The launcher also detaches it from
			// the session (DetachTerminal).
			continue
		}
		if err := add(&s.Baseline[i], true); err != nil {
			rs.close()
			return nil, err
		}
	}
	for i := range s.FS {
		if err := add(&s.FS[i], false); err != nil {
			rs.close()
			return nil, err
		}
	}
	rs.attr.HandledAccessNet = s.HandledNet
	if rs.attr.HandledAccessNet != 0 {
		for _, p := range s.ConnectTCP {
			rs.ports = append(rs.ports, llsyscall.NetPortAttr{AllowedAccess: netConnectTCP, Port: uint64(p)})
		}
		for _, p := range s.BindTCP {
			rs.ports = append(rs.ports, llsyscall.NetPortAttr{AllowedAccess: netBindTCP, Port: uint64(p)})
		}
	}
	rs.attr.Scoped = s.Scoped
	return rs, nil
}

// openRulePath opens p as OpenPath does and says whether it is a
// directory, without an fstat: a first open with O_DIRECTORY succeeds
// only on a directory, and when it fails with ENOTDIR the second open,
// without it, can only find something else (or fail as before). A path
// swapped for a directory between the two opens gets the file rights
// only, which is narrower. On a VM where a system call costs microseconds
// this saves a call per directory rule (most of them) and one per file.
func openRulePath(p string, follow bool) (fd int, dir bool, err error) {
	fd, err = openPath(p, follow, unix.O_DIRECTORY)
	if err == nil {
		return fd, true, nil
	}
	if !errors.Is(err, unix.ENOTDIR) {
		return -1, false, err
	}
	fd, err = openPath(p, follow, 0)
	return fd, false, err
}

// OpenPath opens p as an O_PATH descriptor for a path_beneath rule. With
// follow unset no component may be a symlink (openat2
// RESOLVE_NO_SYMLINKS; on kernels without openat2, only the last
// component is checked).
func OpenPath(p string, follow bool) (int, error) { return openPath(p, follow, 0) }

func openPath(p string, follow bool, extra int) (int, error) {
	flags := unix.O_PATH | unix.O_CLOEXEC | extra
	if follow {
		return unix.Open(p, flags, 0)
	}
	fd, err := unix.Openat2(unix.AT_FDCWD, p, &unix.OpenHow{
		Flags:   uint64(flags),
		Resolve: unix.RESOLVE_NO_SYMLINKS,
	})
	if errors.Is(err, unix.ENOSYS) {
		return unix.Open(p, flags|unix.O_NOFOLLOW, 0)
	}
	return fd, err
}

func (rs *ruleset) close() {
	for _, p := range rs.paths {
		unix.Close(p.ParentFd)
	}
	rs.paths = nil
}

// restrictThread creates the ruleset and applies it to the calling OS
// thread only. The caller must hold that thread (runtime.LockOSThread)
// until it execs. With keep, a successful call leaves the rule paths'
// descriptors and the ruleset's open: every one is close-on-exec (O_PATH
// opens ask for it, ruleset descriptors always have it), so the execve
// that follows closes them all, and ~40 close calls are saved on the
// fast path (each a few microseconds on the development VM).
func (rs *ruleset) restrictThread(keep bool) (err error) {
	defer func() {
		if err != nil || !keep {
			rs.close()
		}
	}()
	fd, err := llsyscall.LandlockCreateRuleset(&rs.attr, 0)
	if err != nil {
		return fmt.Errorf("landlock_create_ruleset: %w", err)
	}
	defer func() {
		if err != nil || !keep {
			unix.Close(fd)
		}
	}()
	for i := range rs.paths {
		if err := llsyscall.LandlockAddPathBeneathRule(fd, &rs.paths[i], 0); err != nil {
			return fmt.Errorf("landlock_add_rule %s: %w", rs.clauses[i], err)
		}
	}
	for i := range rs.ports {
		if err := llsyscall.LandlockAddNetPortRule(fd, &rs.ports[i], 0); err != nil {
			return fmt.Errorf("landlock_add_rule net port %d: %w", rs.ports[i].Port, err)
		}
	}
	// LandlockRestrictSelf acts on the calling thread only (unlike the
	// AllThreads variants), which is the point.
	if err := llsyscall.LandlockRestrictSelf(fd, 0); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	return nil
}

// RestrictThread applies s's Landlock ruleset to the calling, locked OS
// thread (nothing when no right is handled). Stage 2 of the namespaced
// path calls it from nsroot's finalize hook.
func RestrictThread(s *Sandbox) error {
	rs, err := buildRuleset(s)
	if err != nil || rs == nil {
		return err
	}
	return rs.restrictThread(false)
}

// ExecFailed is the command's own execve failing after the sandbox was
// applied (the thread is restricted: nothing but reporting is left).
type ExecFailed struct{ Err error }

func (e *ExecFailed) Error() string { return "execve: " + e.Err.Error() }
func (e *ExecFailed) Unwrap() error { return e.Err }

// ExecLocked applies s to the calling OS thread, which the caller has
// locked (runtime.LockOSThread) and must never unlock, and execs path. A
// Landlock domain, no_new_privs, the capability sets and a seccomp filter
// without TSYNC belong to the thread that sets them and are carried
// across execve by that thread, which becomes the new program's only
// thread: so nothing restricts the other runtime threads (what libraries
// do with AllThreadsSyscall, a signal round-trip per thread). Order:
// Landlock, no_new_privs, capabilities (clearing the bounding set needs
// CAP_SETPCAP, which the capset removes), the seccomp filter last, so
// nothing exec still does is filtered. It returns only on failure: an
// *ExecFailed when the sandbox is in place and execve itself failed.
func ExecLocked(s *Sandbox, path string, argv, env []string) error {
	rs, err := buildRuleset(s)
	if err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		if rs != nil {
			rs.close()
		}
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if rs != nil {
		// Kept open for the execve below to close (restrictThread); if
		// anything after fails, the caller exits or hands over by execve,
		// which closes them too.
		if err := rs.restrictThread(true); err != nil {
			return err
		}
	}
	if err := caps.DropAll(); err != nil {
		return err
	}
	if err := installFilters(s); err != nil {
		return err
	}
	return &ExecFailed{Err: unix.Exec(path, argv, env)}
}

// SetCloexecAbove2 marks every descriptor above stderr close-on-exec, so
// nothing the launcher inherited (an open secret, a socket) reaches the
// sandboxed program. close_range(CLOSE_RANGE_CLOEXEC) does it in one
// call on Linux 5.11+; older kernels get a walk over /proc/self/fd.
func SetCloexecAbove2() error {
	err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	if err == nil {
		return nil
	}
	if !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("close_range: %w", err)
	}
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return fmt.Errorf("cannot close inherited descriptors: %w", err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return fmt.Errorf("cannot close inherited descriptors: %w", err)
	}
	for _, n := range names {
		fd, err := strconv.Atoi(n)
		if err != nil || fd <= 2 {
			continue
		}
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil && !errors.Is(err, unix.EBADF) {
			return fmt.Errorf("cannot close inherited descriptor %d: %w", fd, err)
		}
	}
	return nil
}

// DetachTerminal starts a new session when no standard stream is a
// terminal, so the tool (and anything it leaves behind) has no
// controlling terminal: /dev/tty answers ENXIO and the terminal's
// foreground group is out of its reach. With a terminal on its streams
// the tool keeps the caller's session, for job control; the seccomp layer
// refuses TIOCSTI and TIOCSPGRP there. setsid fails for a process group
// leader (a shell's foreground job); the Landlock ruleset then still
// withholds /dev/tty.
func DetachTerminal() {
	if !stdioIsTerminal() {
		_, _ = unix.Setsid()
	}
}

// stdioTTY remembers nsroot.StdioIsTerminal for this process: 0 not yet
// asked, 1 a terminal, 2 none. An exec asks twice (DetachTerminal, then
// the ruleset's /dev/tty), three ioctls each time; the standard streams
// do not change in between.
var stdioTTY atomic.Int32

func stdioIsTerminal() bool {
	switch stdioTTY.Load() {
	case 1:
		return true
	case 2:
		return false
	}
	tty := nsroot.StdioIsTerminal()
	if tty {
		stdioTTY.Store(1)
	} else {
		stdioTTY.Store(2)
	}
	return tty
}

// installFilters installs, on the calling thread, learn's trace filter
// when exec runs under --denials (first: the tool's own filter may refuse
// seccomp(2)), then the tool's seccomp filter.
func installFilters(s *Sandbox) error {
	if s.Trace != nil {
		if err := seccomp.Install(s.Trace); err != nil {
			return fmt.Errorf("--denials: %w", err)
		}
	}
	if s.Filter != nil {
		return seccomp.Install(s.Filter)
	}
	return nil
}
