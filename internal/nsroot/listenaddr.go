package nsroot

import (
	"errors"
	"strconv"
	"strings"
)

// errListenAddr is a Spec.Listen address parseListenAddr does not take.
var errListenAddr = errors.New("not an IPv4 address and port (a.b.c.d:port)")

// parseListenAddr reads a Spec.Listen address: a dotted-quad IPv4
// address and a port, as net/netip.ParseAddrPort reads such an address
// (FuzzParseListenAddr holds the two to agreement). Stage 2 only ever
// listens on the proxy's loopback address inside a network namespace
// that has nothing else, so IPv6 is not taken. Not netip itself: nsroot
// links no network package (parent_linux.go, Child.Listeners).
func parseListenAddr(s string) (ip [4]byte, port uint16, err error) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return [4]byte{}, 0, errListenAddr
	}
	p, perr := strconv.ParseUint(s[i+1:], 10, 16)
	if perr != nil {
		return [4]byte{}, 0, errListenAddr
	}
	host := s[:i]
	for n := range 4 {
		field := host
		if n < 3 {
			j := strings.IndexByte(host, '.')
			if j < 0 {
				return [4]byte{}, 0, errListenAddr
			}
			field, host = host[:j], host[j+1:]
		}
		// 1 to 3 digits, no leading zero, at most 255 (netip refuses
		// "01" as possibly octal).
		if len(field) == 0 || len(field) > 3 || len(field) > 1 && field[0] == '0' {
			return [4]byte{}, 0, errListenAddr
		}
		v := 0
		for k := 0; k < len(field); k++ {
			c := field[k]
			if c < '0' || c > '9' {
				return [4]byte{}, 0, errListenAddr
			}
			v = v*10 + int(c-'0')
		}
		if v > 255 {
			return [4]byte{}, 0, errListenAddr
		}
		ip[n] = byte(v)
	}
	return ip, uint16(p), nil
}
