//go:build linux

package compiler

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// syncTree makes everything written below dir durable with one syncfs(2)
// on its filesystem.
func syncTree(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return unix.Syncfs(int(d.Fd()))
}

// swapDirs puts the directory next in place of cur and leaves cur's
// previous content at next. renameat2(RENAME_EXCHANGE) (Linux 3.15) does
// it in one atomic step, so a reader always finds a complete directory at
// cur; filesystems without it (and a first compile, when cur is absent)
// fall back to two renames.
func swapDirs(next, cur string) error {
	err := unix.Renameat2(unix.AT_FDCWD, next, unix.AT_FDCWD, cur, unix.RENAME_EXCHANGE)
	if err == nil {
		return nil
	}
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		return swapByRename(next, cur)
	}
	return &os.LinkError{Op: "renameat2", Old: next, New: cur, Err: err}
}
