//go:build linux

package nsroot

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Child is a command running in its namespaces. Wait must be called once
// after a successful Start: it reaps the command and stops forwarding
// signals.
type Child struct {
	Pid int

	// Listeners are the listening TCP sockets stage 2 opened for
	// Spec.Listen, in that order, inside the command's network namespace,
	// as files: net.FileListener makes each a net.Listener. nsroot does
	// not link package net itself, because its stage 2 runs in
	// jp-policy-exec, which would otherwise initialise net (and
	// net/netip) on every start.
	Listeners []*os.File
	// Files are the descriptors stage 2's Finalize hook handed back with
	// SendFile, by name.
	Files map[string]*os.File
	// Placeholders are host paths stage 2 created so that a masked path
	// that did not exist can be mounted over (outermost first). They are
	// left in place: a later run reuses them, and removing one would lift
	// the mask of a concurrent run (the kernel detaches mounts on a
	// deleted dentry in every namespace).
	Placeholders []string

	userns string // readlink of the command's /proc/PID/ns/user
	sigs   chan os.Signal
	stop   chan struct{}
	done   chan waitResult
}

type waitResult struct {
	status syscall.WaitStatus
	err    error
}

// Signals the parent forwards to the command. SIGINT, SIGQUIT and
// SIGWINCH are also sent by the terminal to its whole foreground process
// group, which the command shares with the parent (no setsid, no
// setpgid): those are forwarded only when the parent is not in the
// terminal's foreground group, so a ^C reaches the command once. SIGTSTP
// and SIGCONT are not caught: parent and command stop and resume together.
var forwarded = []os.Signal{
	syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT,
	syscall.SIGWINCH, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGALRM,
}

// ambient are the capabilities stage 2 needs in its user namespace, kept
// across the re-exec as ambient capabilities (an unprivileged uid loses
// all others at execve): mounts and pivot_root, bringing lo up, and
// dropping the bounding set. Stage 2 drops all of them before the command.
var ambient = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN, unix.CAP_SETPCAP}

// Start runs the command of s in new user, mount and IPC namespaces (and a
// network namespace when s.Net), in a root built from s. It returns once
// the command has been exec'd, or with the error that stopped stage 2
// (*SetupError), or an error matching ErrUnavailable when the kernel
// refuses the namespaces — the caller may then fall back.
func Start(s *Spec) (*Child, error) {
	if ok, reason := Available(); !ok {
		return nil, &UnavailableError{Reason: reason}
	}
	enc := s.encode()
	specR, specW, err := specChannel(enc)
	if err != nil {
		return nil, err
	}
	defer specR.Close()
	if specW != nil {
		defer specW.Close()
	}
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	mine := os.NewFile(uintptr(pair[0]), "nsroot-parent")
	theirs := os.NewFile(uintptr(pair[1]), "nsroot-stage2")
	defer mine.Close()
	defer theirs.Close()

	flags := uintptr(unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWIPC)
	if s.Net {
		flags |= unix.CLONE_NEWNET
	}
	uid, gid := os.Geteuid(), os.Getegid()
	stdio := s.Stdio
	for i, f := range []*os.File{os.Stdin, os.Stdout, os.Stderr} {
		if stdio[i] == nil {
			stdio[i] = f
		}
	}
	// syscall.ForkExec rather than os.StartProcess: the latter probes
	// pidfd support by forking a throw-away child on first use, a process
	// more on the path of every tool call.
	attr := &syscall.ProcAttr{
		Files: []uintptr{stdio[0].Fd(), stdio[1].Fd(), stdio[2].Fd(), specR.Fd(), theirs.Fd()},
		// Stage 2 needs nothing from the caller's environment (the
		// command's is in the spec), only a lean Go runtime: it lives for
		// a few milliseconds, so no garbage collection and one P. A set
		// GOMAXPROCS also spares the runtime's cgroup probe at start-up.
		Env: []string{"GOMAXPROCS=1", "GOGC=off"},
		Sys: &syscall.SysProcAttr{
			Cloneflags:  flags,
			UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
			GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
			AmbientCaps: ambient,
			// If the parent dies, so does the command: nothing else would
			// report its status, and it must not outlive its supervisor.
			Pdeathsig: syscall.SIGKILL,
		},
	}

	// Orphans of the command (a process it forked into the background)
	// are reparented to this process rather than to init, so Wait can end
	// them with the command: nothing the tool starts outlives its call.
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)

	c := &Child{
		Files: map[string]*os.File{},
		sigs:  make(chan os.Signal, 8),
		stop:  make(chan struct{}),
		done:  make(chan waitResult, 1),
	}
	// Registered before the clone, so a signal that arrives while stage 2
	// builds the root is forwarded rather than killing the parent.
	signal.Notify(c.sigs, forwarded...)

	started := make(chan error, 1)
	var pid int
	go func() {
		// Pdeathsig fires when the thread that cloned the child exits, not
		// the process: this goroutine keeps that thread until the child is
		// reaped, so the Go scheduler cannot retire it earlier.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		bin, argv0 := "/proc/self/exe", os.Args[0]
		if s.Stage2 != "" {
			bin, argv0 = s.Stage2, s.Stage2
		}
		p, err := syscall.ForkExec(bin, []string{argv0, stage2Arg}, attr)
		if err != nil {
			started <- err
			return
		}
		pid = p
		started <- nil
		var ws syscall.WaitStatus
		for {
			_, err = syscall.Wait4(p, &ws, 0, nil)
			if err != syscall.EINTR {
				break
			}
		}
		c.done <- waitResult{ws, err}
	}()
	if err := <-started; err != nil {
		signal.Stop(c.sigs)
		return nil, startError(err)
	}
	c.Pid = pid
	// The command's user namespace: what tells its leftovers from other
	// children of this process.
	c.userns, _ = os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/user")
	go c.forward()
	specR.Close()
	theirs.Close()

	var werr error
	if specW != nil {
		// The pipe fallback: stage 2 reads the whole spec before doing
		// anything; if it died first, the write fails and its status
		// tells why.
		_, werr = specW.Write(enc)
		specW.Close()
	}

	serr := c.receive(mine)
	if serr == nil && werr != nil {
		serr = werr
	}
	if serr != nil {
		c.kill()
		code, _ := c.Wait()
		var se *SetupError
		if errors.As(serr, &se) && se.Step == "stage2" {
			se.Msg += fmt.Sprintf(" (status %d)", code)
		}
		c.closeFiles()
		return nil, serr
	}
	return c, nil
}

// specChannel returns the descriptor stage 2 reads its spec from (its fd
// 3): a memfd that already holds the whole spec, so stage 2 learns its
// size with one fstat and reads it with one pread into a buffer of that
// size, never waiting for the parent nor growing a buffer (each fresh heap
// page is a page fault). Where memfd_create is refused (a seccomp profile),
// a pipe whose write end (w) the parent fills once stage 2 runs.
func specChannel(enc []byte) (r, w *os.File, err error) {
	if fd, err := unix.MemfdCreate("nsroot-spec", unix.MFD_CLOEXEC); err == nil && !testNoMemfd {
		f := os.NewFile(uintptr(fd), "nsroot-spec")
		if _, err := f.Write(enc); err == nil {
			return f, nil, nil
		}
		f.Close()
	}
	return os.Pipe()
}

// testNoMemfd makes specChannel take the pipe (tests of the fallback).
var testNoMemfd bool

// startError maps the clone's refusals to ErrUnavailable: EPERM (seccomp
// in a container, AppArmor), ENOSPC/EUSERS (user.max_user_namespaces or
// nesting depth), EINVAL (a kernel without user namespaces).
func startError(err error) error {
	if errno, ok := errors.AsType[syscall.Errno](err); ok {
		switch errno {
		case unix.EPERM, unix.EACCES, unix.ENOSPC, unix.EUSERS, unix.EINVAL, unix.ENOSYS:
			return &UnavailableError{Reason: "clone: " + errno.Error()}
		}
	}
	return fmt.Errorf("starting the sandbox: %w", err)
}

// receive reads stage 2's messages until the socket closes: it closes on
// the command's execve (close-on-exec). 'R' comes right before execve, so
// an EOF without it means stage 2 died.
func (c *Child) receive(sock *os.File) error {
	fd := int(sock.Fd())
	// Messages are small (usually "R" alone): a page, grown for a longer
	// one (a placeholder path, an error), rather than a large buffer
	// whose pages every run would touch.
	buf := make([]byte, 4096)
	oob := make([]byte, unix.CmsgSpace(4))
	ready := false
	for {
		n, oobn, err := recvWhole(fd, &buf, oob)
		if err != nil {
			return fmt.Errorf("reading from the sandbox: %w", err)
		}
		if n == 0 {
			if !ready {
				return &SetupError{Step: "stage2", Msg: "exited before running the command"}
			}
			return nil
		}
		var f *os.File
		if oobn > 0 {
			if f, err = parseRights(oob[:oobn]); err != nil {
				return err
			}
		}
		typ, payload := buf[0], string(buf[1:n])
		switch typ {
		case msgReady:
			ready = true
		case msgListener:
			if f == nil {
				return &SetupError{Step: "listen", Msg: "listener message without a descriptor"}
			}
			c.Listeners = append(c.Listeners, f)
		case msgFile:
			if f == nil {
				return &SetupError{Step: "file", Msg: "file message without a descriptor"}
			}
			c.Files[payload] = f
		case msgPlaceholder:
			c.Placeholders = append(c.Placeholders, payload)
		case msgError:
			step, rest, _ := strings.Cut(payload, "\x00")
			msg, num, _ := strings.Cut(rest, "\x00")
			if step == "unavailable" {
				return &UnavailableError{Reason: msg}
			}
			n, _ := strconv.Atoi(num)
			return &SetupError{Step: step, Msg: msg, Errno: syscall.Errno(n)}
		default:
			if f != nil {
				f.Close()
			}
		}
	}
}

// recvWhole receives one datagram into *buf, growing it first when a peek
// (no control buffer, so no descriptor is taken; MSG_TRUNC answers the
// full length) says the datagram is longer, and its descriptor into oob.
func recvWhole(fd int, buf *[]byte, oob []byte) (n, oobn int, err error) {
	for {
		n, _, _, _, err = unix.Recvmsg(fd, (*buf)[:1], nil, unix.MSG_PEEK|unix.MSG_TRUNC)
		if err == nil {
			if n > len(*buf) {
				*buf = make([]byte, n)
			}
			n, oobn, _, _, err = unix.Recvmsg(fd, *buf, oob, unix.MSG_CMSG_CLOEXEC)
		}
		if err != unix.EINTR {
			return n, oobn, err
		}
	}
}

func parseRights(oob []byte) (*os.File, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, err
	}
	var f *os.File
	for _, m := range msgs {
		fds, err := unix.ParseUnixRights(&m)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if f == nil {
				f = os.NewFile(uintptr(fd), "nsroot-handback")
			} else {
				unix.Close(fd) // one descriptor per message; extras are not ours to keep
			}
		}
	}
	return f, nil
}

// forward relays the parent's signals to the command until Wait returns.
func (c *Child) forward() {
	for {
		select {
		case <-c.stop:
			return
		case s := <-c.sigs:
			sig := s.(syscall.Signal)
			if (sig == syscall.SIGINT || sig == syscall.SIGQUIT || sig == syscall.SIGWINCH) && inForeground() {
				continue // the terminal sent it to the command too
			}
			_ = unix.Kill(c.Pid, sig)
		}
	}
}

// inForeground reports whether the parent is in the foreground process
// group of the terminal on its stdio, i.e. whether terminal-generated
// signals reach the command directly.
func inForeground() bool {
	for fd := 0; fd <= 2; fd++ {
		if pg, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP); err == nil {
			return pg == unix.Getpgrp()
		}
	}
	return false
}

func (c *Child) kill() { _ = unix.Kill(c.Pid, unix.SIGKILL) }

// Kill ends the command (SIGKILL); Wait must still be called to reap it.
// For a parent that cannot keep its side of the bargain (the proxy it
// was to serve failed to start).
func (c *Child) Kill() { c.kill() }

func (c *Child) closeFiles() {
	for _, l := range c.Listeners {
		l.Close()
	}
	for _, f := range c.Files {
		f.Close()
	}
}

// Wait waits for the command and returns its exit status the way a shell
// reports it: the exit code, or 128+n when signal n killed it.
func (c *Child) Wait() (int, error) {
	r := <-c.done
	signal.Stop(c.sigs)
	close(c.stop)
	c.endLeftovers()
	if r.err != nil {
		return 0, r.err
	}
	ws := r.status
	if ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	return ws.ExitStatus(), nil
}

// Run is Start then Wait.
func Run(s *Spec) (int, error) {
	c, err := Start(s)
	if err != nil {
		return 0, err
	}
	return c.Wait()
}

// endLeftovers kills and reaps what the command left running: processes
// in its user namespace (it cannot create another: the seccomp layer
// refuses new namespaces) that were reparented to this process, the
// subreaper. Killing one reparents its own children here, so it repeats
// until none is left (bounded, against a process that forks in a loop).
func (c *Child) endLeftovers() {
	if c.userns == "" || !hasChildren() {
		return
	}
	for range 1000 {
		pids := c.leftovers()
		if len(pids) == 0 {
			return
		}
		for _, p := range pids {
			_ = unix.Kill(p, unix.SIGKILL)
		}
		for _, p := range pids {
			var ws syscall.WaitStatus
			for {
				if _, err := syscall.Wait4(p, &ws, 0, nil); err != syscall.EINTR {
					break
				}
			}
		}
	}
}

// hasChildren reports whether this process has any child left, living
// or zombie, without reaping one (WNOWAIT): when the command left nothing
// behind (the usual case) there is no /proc walk. An error other than
// ECHILD says yes, so the walk still runs.
func hasChildren() bool {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WSTOPPED|unix.WCONTINUED|unix.WNOHANG|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		return err != unix.ECHILD
	}
}

// leftovers lists this process's children that are in the command's user
// namespace.
func (c *Child) leftovers() []int {
	tasks, _ := os.ReadDir("/proc/self/task")
	var pids []int
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for f := range strings.FieldsSeq(string(b)) {
			p, err := strconv.Atoi(f)
			if err != nil {
				continue
			}
			// A zombie has no namespace left to read: one of the
			// command's stays until this process exits (it cannot be
			// told from another child's, which is not ours to reap).
			ns, err := os.Readlink("/proc/" + strconv.Itoa(p) + "/ns/user")
			if err != nil {
				continue
			}
			if ns == c.userns {
				pids = append(pids, p)
			}
		}
	}
	return pids
}
