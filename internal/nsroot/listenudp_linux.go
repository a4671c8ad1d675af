//go:build linux

package nsroot

import (
	"fmt"
	"strings"

	"golang.org/x/sys/unix"
)

// UDPPrefix marks a Spec.Listen address as a UDP socket (bound, handed
// back like a listener: net.FilePacketConn reads it), e.g. the egress
// resolver's "udp:127.0.0.53:53".
const UDPPrefix = "udp:"

// listenAddr opens the socket for one Spec.Listen entry.
func listenAddr(a string) (int, error) {
	if u, ok := strings.CutPrefix(a, UDPPrefix); ok {
		return listenUDP(u)
	}
	return listenTCP(a)
}

func listenUDP(addr string) (int, error) {
	ip, port, err := parseListenAddr(addr)
	if err != nil {
		return -1, fmt.Errorf("listen address %q: %w", addr, err)
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: int(port), Addr: ip}); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}
