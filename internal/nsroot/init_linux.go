//go:build linux

package nsroot

import (
	"os"
	"os/signal"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mountProc mounts a procfs of the command's PID namespace at /proc,
// read-only: it lists only the namespace's processes, and /proc/self
// names whoever reads it. hidepid=2 hides the entries of processes the
// reader may not ptrace: stage 2 (pid 1, not dumpable) is not there,
// not even its descriptor numbers, while the command and what it starts
// (one Landlock domain) see each other. (hidepid lets members of its gid,
// 0, see every entry: a root caller's command lists stage 2's, whose
// files the ptrace checks still close.) The kernel refuses it (EPERM) where no fully visible procfs
// is mounted on the host (a container masking parts of /proc): that is
// reported as unavailable, so the caller falls back to the fast path
// under its rules rather than showing the host's processes.
func (r *root) mountProc() error {
	fd, err := r.ensure("/proc", true)
	if err != nil {
		return fail("proc", err, "mount point /proc")
	}
	err = unix.Mount("proc", fdPath(fd), "proc", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "hidepid=2")
	unix.Close(fd)
	if err == unix.EPERM {
		return fail("unavailable", err, "mounting a procfs for the PID namespace")
	}
	if err != nil {
		return fail("proc", err, "mounting a procfs for the PID namespace")
	}
	return nil
}

// initSignals are the signals stage 2 catches and drops while the
// command runs. As the namespace's init it is spared every signal it has
// no handler for, but the Go runtime installs handlers, and for these
// its handler makes it exit (SIGINT, SIGTERM, SIGHUP) or crash (SIGQUIT),
// and with it every process of the namespace; caught and dropped, a ^C
// from the terminal reaches the command only (it is in the same
// foreground group), and what the parent forwards goes to the command
// through its pidfd. The others need no catching: the runtime's handler
// drops SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE and SIGWINCH by itself, and
// the stop signals keep their default, which the kernel never delivers
// to a namespace's init. Each signal caught costs stage 2 a round trip
// to the runtime's signal thread before the fork. SIGCHLD is not among
// them: an ignored SIGCHLD would reap children before wait4 sees the
// command's status.
var initSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// runInit starts the command as a child of stage 2, which is the PID
// namespace's init, then stays as that init: it reaps every process
// reparented to it and, when the command exits, exits with the command's
// status (128+n for signal n). The kernel then kills whatever is left in
// the namespace, at any depth, before the parent's wait sees stage 2's
// exit.
//
// The command is forked from this thread, the one that dropped its
// capabilities and on which the Finalize hook applied Landlock and
// seccomp: the child inherits exactly that thread's credentials and
// filter. Before the fork the other threads of this process drop their
// capabilities too and the process becomes non-dumpable, so the command
// (same uid) can neither ptrace stage 2 nor open its /proc/1/mem.
func runInit(s *Spec) error {
	if err := dropAllThreads(); err != nil {
		return fail("caps", err, "dropping every thread's capabilities")
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fail("caps", err, "prctl(PR_SET_DUMPABLE)")
	}
	// Caught, not ignored, from before the fork for as long as stage 2
	// lives: an ignored disposition would be inherited by the command
	// (handlers are reset in the child, so it starts with the default
	// dispositions), and without Notify the Go runtime's own handler ends
	// the process on them, and with it the run, when the command signals
	// its parent at once (kill -TERM $PPID). Never switched to
	// signal.Ignore: between its disabling of Notify and its setting
	// SIG_IGN a signal gets the runtime's fatal default. The channel is
	// never read: a signal beyond its buffer is dropped, which is what
	// the init of the namespace wants.
	caught := make(chan os.Signal, 16)
	signal.Notify(caught, initSignals...)
	pidfd := -1
	pid, err := syscall.ForkExec(s.Path, s.Argv, &syscall.ProcAttr{
		Env:   s.Env,
		Files: []uintptr{0, 1, 2},
		Sys:   &syscall.SysProcAttr{PidFD: &pidfd},
	})
	if err != nil {
		return fail("exec", err, "%s", s.Path)
	}
	if pidfd < 0 {
		// The parent cannot forward signals without it: end the command
		// (this is its init; it dies with us) and say why.
		return fail("stage2", unix.ENOSYS, "no pidfd for the command (Linux 5.3+ needed)")
	}
	err = send(msgReady, "", pidfd)
	unix.Close(pidfd)
	if err != nil {
		return fail("stage2", err, "reporting to the parent")
	}
	// Only the command holds the standard streams and the parent's socket
	// from here on: a reader of the command's output sees EOF when the
	// command and its processes are gone, as without stage 2.
	unix.Close(stage2Sock)
	stage2Sock = -1
	for fd := 0; fd <= 2; fd++ {
		unix.Close(fd)
	}
	for {
		var ws unix.WaitStatus
		p, err := unix.Wait4(-1, &ws, 0, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			os.Exit(127) // ECHILD before the command's status: cannot happen
		}
		if p != pid {
			continue // an orphan reparented here, reaped
		}
		if ws.Signaled() {
			os.Exit(128 + int(ws.Signal()))
		}
		os.Exit(ws.ExitStatus())
	}
}

// dropAllThreads empties the capability sets of every thread of this
// process (dropCapabilities did this thread's): stage 2 outlives the
// command's execve, and no thread of it keeps CAP_SYS_ADMIN in the
// namespace the command runs in.
func dropAllThreads() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	_, _, errno := syscall.AllThreadsSyscall(unix.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0)
	if errno == unix.ENOTSUP {
		// A cgo build cannot (psx could, but its C side reads
		// /proc/<pid>/task, which is not this process's before the
		// pivot nor readable after it here). The other threads stay out
		// of the command's reach all the same: stage 2 is not dumpable,
		// and the command's Landlock domain may not ptrace a thread
		// outside it.
		return nil
	}
	if errno != 0 {
		return errno
	}
	return nil
}
