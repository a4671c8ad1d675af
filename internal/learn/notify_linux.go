//go:build linux

package learn

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// seccompNotif is struct seccomp_notif (linux/seccomp.h).
type seccompNotif struct {
	ID    uint64
	PID   uint32 // the calling thread, in this process's pid namespace
	Flags uint32
	// struct seccomp_data
	Nr   int32
	Arch uint32
	IP   uint64
	Args [6]uint64
}

// seccompNotifResp is struct seccomp_notif_resp.
type seccompNotifResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

const (
	// SECCOMP_USER_NOTIF_FLAG_CONTINUE: the kernel runs the call as made.
	notifContinue = 1
	// SECCOMP_IOCTL_NOTIF_SET_FLAGS and SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
	// (Linux 6.6): the command and the observer hand each notification
	// over on the same CPU, as the two ends of a pipe do.
	notifSetFlags = 0x40082104
	notifSyncWake = 1
)

// runNotify runs argv (found at bin) for learn under a seccomp filter
// that answers SECCOMP_RET_USER_NOTIF for the calls learn reads, and
// returns its exit status once it and every process it started have
// ended.
//
// No second program installs the filter: a goroutine locks an OS thread,
// sets no_new_privs and installs the filter on that thread alone (no
// SECCOMP_FILTER_FLAG_TSYNC; both are per-thread attributes), and starts
// the command from it: syscall.ForkExec clones the calling thread, so the
// command inherits the filter, which then holds for everything it starts.
// The goroutine returns without unlocking, and the runtime ends a thread
// whose goroutine exits locked (runtime.LockOSThread), so no other
// goroutine ever runs under the filter. A call that thread makes before
// it ends is answered like the command's: the observer runs on another
// thread, and has the listener before the command starts.
func (t *tracer) runNotify(bin string, argv []string, dir string, env []string) (int, error) {
	prog, err := traceProgram(retUserNotif)
	if err != nil {
		return 0, err
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return 0, fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %w", err)
	}
	defer unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
	// Closed when the last child is reaped: the observer's cue to stop.
	var done [2]int
	if err := unix.Pipe2(done[:], unix.O_CLOEXEC); err != nil {
		return 0, err
	}
	defer unix.Close(done[0])
	listener := make(chan int, 1)
	started := make(chan error, 1)
	var pid int
	go func() {
		runtime.LockOSThread()
		// Never unlocked: the thread carries the filter and ends with
		// this goroutine.
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			started <- fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
			return
		}
		fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: (*unix.SockFilter)(unsafe.Pointer(&prog[0]))}
		fd, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER, uintptr(unsafe.Pointer(&fprog)))
		runtime.KeepAlive(prog)
		if e != 0 {
			started <- fmt.Errorf("seccomp(SECCOMP_FILTER_FLAG_NEW_LISTENER): %w", e)
			return
		}
		listener <- int(fd)
		p, err := syscall.ForkExec(bin, argv, &syscall.ProcAttr{
			Dir: dir,
			Env: env,
			// The command's own output goes to stderr: stdout is the
			// proposal's, so `jp-policy learn ... > proposal.toml`
			// holds only TOML.
			Files: []uintptr{0, 2, 2},
		})
		pid = p
		started <- err
	}()
	var fd int
	select {
	case fd = <-listener:
	case err := <-started:
		unix.Close(done[1])
		return 0, err
	}
	defer unix.Close(fd)
	// Best effort: kernels before 6.6 hand notifications over as any
	// wake-up, which costs more per call and changes nothing else.
	unix.Syscall(unix.SYS_IOCTL, uintptr(fd), notifSetFlags, notifSyncWake)

	// The run ends when the command and every process it started have
	// ended. The filter's own end (POLLHUP on the listener) is no sign:
	// the starting thread keeps the filter if the runtime parks it
	// instead of ending it (it does with the main thread). So learn is
	// the reaper of the command's orphans (a process that daemonizes is
	// still the run's: subreaper from before the command starts) and
	// waits for every child until none is left, on another goroutine:
	// the observer must go on answering notifications until then.
	type ended struct {
		code int
		err  error
	}
	result := make(chan ended, 1)
	go func() {
		defer unix.Close(done[1])
		if err := <-started; err != nil {
			result <- ended{err: fmt.Errorf("start %s: %w", argv[0], err)}
			return
		}
		code := -1
		for {
			var ws unix.WaitStatus
			wpid, err := wait4(-1, &ws)
			if errors.Is(err, unix.ECHILD) {
				break
			}
			if err != nil {
				result <- ended{err: err}
				return
			}
			if wpid == pid {
				if ws.Exited() {
					code = ws.ExitStatus()
				} else {
					code = 128 + int(ws.Signal())
				}
			}
		}
		if code < 0 {
			result <- ended{err: errors.New("lost the observed command's exit status")}
			return
		}
		result <- ended{code: code}
	}()
	if err := t.serve(fd, done[0]); err != nil {
		return 0, err
	}
	r := <-result
	return r.code, r.err
}

// serve answers the filter's notifications on fd until done is closed or
// no task is left under the filter. Each call goes on as made
// (SECCOMP_USER_NOTIF_FLAG_CONTINUE): the observer reads, it never
// decides.
func (t *tracer) serve(fd, done int) error {
	pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}, {Fd: int32(done), Events: unix.POLLIN}}
	for {
		pfd[0].Revents, pfd[1].Revents = 0, 0
		if _, err := unix.Poll(pfd, -1); err != nil {
			if err == unix.EINTR {
				continue
			}
			return fmt.Errorf("poll: %w", err)
		}
		if pfd[1].Revents != 0 {
			return nil
		}
		if pfd[0].Revents&unix.POLLIN == 0 {
			if pfd[0].Revents&(unix.POLLHUP|unix.POLLERR) != 0 {
				return nil
			}
			continue
		}
		var n seccompNotif
		if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SECCOMP_IOCTL_NOTIF_RECV, uintptr(unsafe.Pointer(&n))); e != 0 {
			// ENOENT: the caller was killed before it was received.
			if e == unix.EINTR || e == unix.ENOENT {
				continue
			}
			return fmt.Errorf("seccomp(SECCOMP_IOCTL_NOTIF_RECV): %w", e)
		}
		t.notified(fd, &n)
		resp := seccompNotifResp{ID: n.ID, Flags: notifContinue}
		// ENOENT: the caller is gone (killed while it waited).
		unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SECCOMP_IOCTL_NOTIF_SEND, uintptr(unsafe.Pointer(&resp)))
	}
}

// notified reads one notified call while its caller waits for the answer.
func (t *tracer) notified(fd int, n *seccompNotif) {
	nr := uint64(uint32(n.Nr))
	if n.Arch != auditArch || (x32Bit != 0 && nr&x32Bit != 0) {
		t.foreign = true
		return
	}
	tid := int(n.PID)
	p := t.enter(tid, nr, n.Args)
	if p == nil {
		return
	}
	// The thread id was read from the notification; what enter read
	// through it (memory, working directory, descriptors) is the
	// caller's only if the caller still waits: a thread killed since can
	// have had its id reused.
	id := n.ID
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SECCOMP_IOCTL_NOTIF_ID_VALID, uintptr(unsafe.Pointer(&id))); e != 0 {
		return
	}
	t.record(tid, p, outcome(p))
}

// outcome is the result learn records a notified call by, judged from
// the file system just before the call runs: the kernel reports the
// result of a call it continues to no one. A call on a path succeeds when
// the path exists (a read, a write, an execution, a delete, the source of
// a rename or link) or, to create it, when its directory does; a connect
// counts as made. The error stands for any failure.
func outcome(p *pending) int64 {
	if p.conn != nil || p.dnsFD >= 0 {
		return 0
	}
	for _, fa := range p.fa {
		var st unix.Stat_t
		if fa.Op&OpCreate != 0 {
			if unix.Stat(filepath.Dir(fa.Path), &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
				return -int64(unix.ENOENT)
			}
			continue
		}
		// fa.Path is already resolved through a final symlink where the
		// call follows one.
		if unix.Lstat(fa.Path, &st) != nil {
			return -int64(unix.ENOENT)
		}
	}
	return 0
}
