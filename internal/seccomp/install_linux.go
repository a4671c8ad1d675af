//go:build linux

package seccomp

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Install loads prog as a seccomp filter on the calling OS thread only
// (no SECCOMP_FILTER_FLAG_TSYNC): the launcher installs it on the locked
// thread that execs, which is all the program inherits. The thread must
// have no_new_privs set (or CAP_SYS_ADMIN).
func Install(prog []bpf.RawInstruction) error {
	if len(prog) == 0 || len(prog) > 4096 {
		return fmt.Errorf("seccomp: program of %d instructions", len(prog))
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: (*unix.SockFilter)(unsafe.Pointer(&prog[0]))}
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if e != 0 {
		return fmt.Errorf("seccomp(SECCOMP_SET_MODE_FILTER): %w", e)
	}
	return nil
}

// Available reports whether this kernel can install a filter that
// answers with an errno: seccomp(SECCOMP_GET_ACTION_AVAIL) for
// SECCOMP_RET_ERRNO, one system call.
func Available() error {
	action := uint32(retErrno)
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action)))
	if e != 0 {
		if errors.Is(e, unix.ENOSYS) || errors.Is(e, unix.EINVAL) {
			return fmt.Errorf("this kernel has no seccomp filters (%w)", e)
		}
		return fmt.Errorf("seccomp: %w", e)
	}
	return nil
}
