//go:build unix

package netproxy

import (
	"net"
	"syscall"
)

// idleClean reports whether an idle upstream connection has nothing to
// read: no bytes its upstream sent unasked and no end of stream. It
// peeks without waiting (MSG_PEEK|MSG_DONTWAIT), one system call; a
// connection it cannot look into counts as not clean and is not reused.
func idleClean(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	clean := false
	err = rc.Read(func(fd uintptr) bool {
		var b [1]byte
		_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		clean = err == syscall.EAGAIN || err == syscall.EWOULDBLOCK
		return true // never wait: the answer is now or not at all
	})
	return err == nil && clean
}
