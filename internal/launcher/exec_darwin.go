//go:build darwin

package launcher

import (
	"fmt"
	"os"
	"strconv"

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
	argv := SandboxExecArgv(p)
	if err := unix.Exec(argv[0], argv, p.Env); err != nil {
		return &ExecError{Path: argv[0], Err: err}
	}
	return nil
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
