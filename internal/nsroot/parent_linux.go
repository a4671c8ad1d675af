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
	// not link package net itself: what a binary links is initialised on
	// every start, and nsroot's callers need not use the network.
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

	// cmd is a pidfd of the command, which stage 2 (the namespace's
	// init) forked and handed back: signals are forwarded to it.
	cmd  int
	sigs chan os.Signal
	stop chan struct{}
	fwd  chan struct{} // closed when forward returns (nil if it never ran)
	done chan waitResult
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
	specR, specW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer specR.Close()
	defer specW.Close()
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	mine := os.NewFile(uintptr(pair[0]), "nsroot-parent")
	theirs := os.NewFile(uintptr(pair[1]), "nsroot-stage2")
	defer mine.Close()
	defer theirs.Close()

	// A PID namespace: stage 2 is its init, and when it exits (right
	// after the command does) the kernel kills everything left in it.
	flags := uintptr(unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWIPC | unix.CLONE_NEWPID)
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
			// If the parent dies, so does stage 2, the namespace's init,
			// and with it everything in the namespace: nothing else would
			// report the status, and nothing may outlive its supervisor.
			Pdeathsig: syscall.SIGKILL,
		},
	}

	c := &Child{
		Files: map[string]*os.File{},
		cmd:   -1,
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
	specR.Close()
	theirs.Close()

	// Stage 2 reads the whole spec before doing anything; if it died
	// first, the write fails and its status tells why.
	_, werr := specW.Write(enc)
	specW.Close()

	serr := c.receive(mine)
	if serr == nil && werr != nil {
		serr = werr
	}
	if serr == nil && c.cmd < 0 {
		serr = &SetupError{Step: "stage2", Msg: "no handle on the command came back"}
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
	// Signals that arrived while stage 2 set up wait in c.sigs.
	c.fwd = make(chan struct{})
	go c.forward()
	return c, nil
}

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

// receive reads stage 2's messages until the socket closes: stage 2
// closes it once the command runs. 'R' (with the command's pidfd) comes
// when the command's execve succeeded, so an EOF without it means stage 2
// died. A descriptor that comes with a message that does not keep it is
// closed: nothing received is left open.
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
			if f == nil {
				return &SetupError{Step: "stage2", Msg: "ready message without the command's pidfd"}
			}
			ready = true
			if c.cmd >= 0 {
				unix.Close(c.cmd)
			}
			// The pidfd outlives f: Wait closes it.
			c.cmd, err = unix.Dup(int(f.Fd()))
			f.Close()
			if err != nil {
				return fmt.Errorf("keeping the command's pidfd: %w", err)
			}
			unix.CloseOnExec(c.cmd)
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
			closeIf(f)
			c.Placeholders = append(c.Placeholders, payload)
		case msgError:
			closeIf(f)
			step, rest, _ := strings.Cut(payload, "\x00")
			msg, num, _ := strings.Cut(rest, "\x00")
			if step == "unavailable" {
				return &UnavailableError{Reason: msg}
			}
			n, _ := strconv.Atoi(num)
			return &SetupError{Step: step, Msg: msg, Errno: syscall.Errno(n)}
		default:
			closeIf(f)
		}
	}
}

func closeIf(f *os.File) {
	if f != nil {
		f.Close()
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
	defer close(c.fwd)
	for {
		select {
		case <-c.stop:
			return
		case s := <-c.sigs:
			sig := s.(syscall.Signal)
			if (sig == syscall.SIGINT || sig == syscall.SIGQUIT || sig == syscall.SIGWINCH) && inForeground() {
				continue // the terminal sent it to the command too
			}
			_ = unix.PidfdSendSignal(c.cmd, sig, nil, 0)
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

// kill ends stage 2, the namespace's init: the kernel then kills every
// process in the namespace, the command first among them.
func (c *Child) kill() { _ = unix.Kill(c.Pid, unix.SIGKILL) }

// Kill ends the command and everything it started (SIGKILL to the
// namespace's init); Wait must still be called to reap it.
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
// reports it: the exit code, or 128+n when signal n killed it. Stage 2,
// the namespace's init, exits with that status as soon as the command
// exits, and the kernel has killed and reaped every other process of the
// namespace before stage 2's own exit is reported: when Wait returns,
// nothing the command started is left running, whatever the depth.
func (c *Child) Wait() (int, error) {
	r := <-c.done
	signal.Stop(c.sigs)
	close(c.stop)
	if c.fwd != nil {
		<-c.fwd // no signal is sent through the pidfd once it is closed
	}
	if c.cmd >= 0 {
		unix.Close(c.cmd)
		c.cmd = -1
	}
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
