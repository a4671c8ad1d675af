//go:build linux

package launcher

import (
	"errors"
	"fmt"
	"os"

	"github.com/jp-policy/jp-policy/internal/nsroot"

	"github.com/jp-policy/jp-policy/internal/emit/landlock"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// The launcher talks to Landlock through go-landlock's low-level syscall
// package rather than its high-level API: the high-level API restricts
// every thread of the process, while the launcher restricts only the
// locked thread that will execve (see Exec), which is all the child
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

// PathError is a manifest path the launcher could not use.
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

// buildRuleset resolves m, with fs as its policy grants (m.FS, or
// m.MaskedFS under masks), for a kernel with the given ABI. Rights the
// kernel does not know are dropped (the caller has already refused, or
// been told --best-effort). Baseline paths may be system symlinks (/bin
// on merged-/usr systems) and are followed; policy paths are canonical at
// compile time, so a symlink in them now means the tree changed under the
// artifact and is refused rather than followed.
func buildRuleset(m *landlock.Manifest, fs []landlock.PathRule, abi int) (*ruleset, error) {
	rs := &ruleset{attr: llsyscall.RulesetAttr{HandledAccessFS: fsRightsFor(abi)}}
	if rs.attr.HandledAccessFS == 0 {
		return nil, nil // no Landlock: the caller only gets here with --best-effort
	}
	add := func(r landlock.PathRule, follow bool) error {
		mask, err := parseRights(r.Clause, r.Access)
		if err != nil {
			return err
		}
		mask &= rs.attr.HandledAccessFS
		if mask == 0 {
			return nil
		}
		fd, err := openPath(r.Path, follow)
		if err != nil {
			if errors.Is(err, unix.ENOENT) && r.Optional {
				return nil
			}
			return &PathError{Clause: r.Clause, Path: r.Path, Err: err}
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			unix.Close(fd)
			return &PathError{Clause: r.Clause, Path: r.Path, Err: err}
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR {
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
	noTTY := !nsroot.StdioIsTerminal()
	for _, r := range m.Baseline {
		if noTTY && r.Path == "/dev/tty" {
			// A tool whose standard streams are not a terminal (JP runs
			// tools with pipes) has no business with the controlling
			// terminal: a process it leaves behind could read what the
			// user types to JP next. The launcher also detaches it from
			// the session (detachTerminal).
			continue
		}
		if err := add(r, true); err != nil {
			rs.close()
			return nil, err
		}
	}
	for _, r := range fs {
		if err := add(r, false); err != nil {
			rs.close()
			return nil, err
		}
	}
	if m.Net.Restrict {
		rs.attr.HandledAccessNet = netRightsFor(abi)
	}
	if rs.attr.HandledAccessNet != 0 {
		for _, p := range m.Net.ConnectTCP {
			rs.ports = append(rs.ports, llsyscall.NetPortAttr{AllowedAccess: netConnectTCP, Port: uint64(p)})
		}
		for _, p := range m.Net.BindTCP {
			rs.ports = append(rs.ports, llsyscall.NetPortAttr{AllowedAccess: netBindTCP, Port: uint64(p)})
		}
	}
	for _, s := range m.Scope {
		rs.attr.Scoped |= scopeByName[s]
	}
	rs.attr.Scoped &= scopesFor(abi)
	return rs, nil
}

// openPath opens p as an O_PATH descriptor for a path_beneath rule. With
// follow unset no component may be a symlink (openat2
// RESOLVE_NO_SYMLINKS; on kernels without openat2, only the last
// component is checked).
func openPath(p string, follow bool) (int, error) {
	if follow {
		return unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
	}
	fd, err := unix.Openat2(unix.AT_FDCWD, p, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS,
	})
	if errors.Is(err, unix.ENOSYS) {
		return unix.Open(p, unix.O_PATH|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
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
// until it execs.
func (rs *ruleset) restrictThread() error {
	defer rs.close()
	fd, err := llsyscall.LandlockCreateRuleset(&rs.attr, 0)
	if err != nil {
		return fmt.Errorf("landlock_create_ruleset: %w", err)
	}
	defer unix.Close(fd)
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

// setCloexecAbove2 marks every descriptor above stderr close-on-exec, so
// nothing the launcher inherited (an open secret, a socket) reaches the
// sandboxed program. close_range(CLOSE_RANGE_CLOEXEC) does it in one
// call on Linux 5.11+; older kernels get a walk over /proc/self/fd.
func setCloexecAbove2() error {
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
		var fd int
		if _, err := fmt.Sscan(n, &fd); err != nil || fd <= 2 {
			continue
		}
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil && !errors.Is(err, unix.EBADF) {
			return fmt.Errorf("cannot close inherited descriptor %d: %w", fd, err)
		}
	}
	return nil
}

// detachTerminal starts a new session when no standard stream is a
// terminal, so the tool (and anything it leaves behind) has no
// controlling terminal: /dev/tty answers ENXIO and the terminal's
// foreground group is out of its reach. With a terminal on its streams
// the tool keeps the caller's session, for job control; the seccomp layer
// refuses TIOCSTI and TIOCSPGRP there. setsid fails for a process group
// leader (a shell's foreground job); the Landlock ruleset then still
// withholds /dev/tty.
func detachTerminal() {
	if !nsroot.StdioIsTerminal() {
		_, _ = unix.Setsid()
	}
}
