//go:build unix

package artifact

import (
	"os"
	"syscall"
)

// flock locks f (flock(2), released when f is closed).
func flock(f *os.File, exclusive bool) bool {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	var ferr error
	err = rc.Control(func(fd uintptr) {
		for {
			if ferr = syscall.Flock(int(fd), how); ferr != syscall.EINTR {
				return
			}
		}
	})
	return err == nil && ferr == nil
}
