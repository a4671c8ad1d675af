//go:build darwin

package launcher

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/jp-policy/jp-policy/internal/plan/sbpl"

	"golang.org/x/sys/unix"
)

// KernelABI is 0: Landlock is Linux-only.
func KernelABI() int { return 0 }

// Exec replaces the launcher with sandbox-exec running the planned
// command under the tool's SBPL profile. It returns only on failure.
func Exec(p *Plan) error {
	if p.Profile == "" && p.ProfileText == "" {
		return fmt.Errorf("tool %q has no macOS profile; run `jp-policy compile`", p.Tool)
	}
	if err := setCloexecAbove2(); err != nil {
		return err
	}
	if err := p.setMacTmp(); err != nil {
		return err
	}
	if len(p.NetRules) > 0 && p.ProfileText != "" && strings.Contains(p.ProfileText, sbpl.ProxyPortParam) {
		return superviseProxied(p)
	}
	argv := SandboxExecArgv(p)
	if err := unix.Exec(argv[0], argv, p.Env); err != nil {
		return &ExecError{Path: argv[0], Err: err}
	}
	return nil
}

// superviseProxied runs a tool with net rules: the launcher stays to
// serve its filtering proxy on a loopback port, which the profile lets the
// tool reach and nothing else, and returns the command's status as a
// *ChildExit (a signal as 128+n).
func superviseProxied(p *Plan) error {
	stop, err := startHostProxy(p)
	if err != nil {
		return fmt.Errorf("cannot serve the network proxy: %w", err)
	}
	defer stop()
	defer os.RemoveAll(p.TmpDir)
	argv := SandboxExecArgv(p)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = p.Env, os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return &ExecError{Path: argv[0], Err: err}
	}
	unforward := forwardSignals(func(s os.Signal) { _ = cmd.Process.Signal(s) })
	err = cmd.Wait()
	unforward()
	if err == nil {
		return &ChildExit{Code: 0}
	}
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return &ChildExit{Code: 128 + int(ws.Signal())}
		}
		return &ChildExit{Code: ee.ExitCode()}
	}
	return err
}

// setCloexecAbove2 marks every open descriptor above stderr
// close-on-exec; macOS lists them in /dev/fd.
func setCloexecAbove2() error {
	d, err := os.Open("/dev/fd")
	if err != nil {
		return fmt.Errorf("cannot close inherited descriptors: %w", err)
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return fmt.Errorf("cannot close inherited descriptors: %w", err)
	}
	for _, n := range names {
		fd, err := strconv.Atoi(n)
		if err != nil || fd <= 2 {
			continue
		}
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil && err != unix.EBADF {
			return fmt.Errorf("cannot close inherited descriptor %d: %w", fd, err)
		}
	}
	return nil
}

// forwardSignals passes the termination signals the launcher receives on
// to the command it waits for, until stop is called.
func forwardSignals(send func(os.Signal)) (stop func()) {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-ch:
				send(s)
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(ch); close(done) }
}
