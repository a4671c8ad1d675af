package jpdirs

import (
	"os"
	"syscall"
)

// Filesystems whose "regular" files are kernel interfaces, some of which
// block on read however they are opened: /proc/kmsg is a regular file
// whose read waits for the next kernel message, and Go's poller turns
// its EAGAIN under O_NONBLOCK into that same wait. No config layer lives
// there.
const (
	procMagic       = 0x9fa0
	sysfsMagic      = 0x62656572
	debugfsMagic    = 0x64626720
	tracefsMagic    = 0x74726163
	securityfsMagic = 0x73636673
)

// kernelFS reports whether f is on procfs, sysfs, debugfs, tracefs or
// securityfs (RawControl: Fd would put the file back in blocking mode).
func kernelFS(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	var st syscall.Statfs_t
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.Fstatfs(int(fd), &st) }); err != nil || serr != nil {
		return false
	}
	switch uint32(st.Type) {
	case procMagic, sysfsMagic, debugfsMagic, tracefsMagic, securityfsMagic:
		return true
	}
	return false
}
