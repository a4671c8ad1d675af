package policy

import (
	"fmt"
	"net/netip"
	"strings"
)

// AddrError refuses a connection to an address that a name resolved to
// but that a rule on the name does not grant (RFD 076 net rules name
// hosts; this is what a rule on a name means once the name is resolved).
type AddrError struct {
	Host  string     // canonical host the rule matched
	Addr  netip.Addr // the address it resolved to
	Class string     // "loopback", "link-local", "private", ...
}

func (e *AddrError) Error() string {
	return fmt.Sprintf("access denied: %q resolved to %s, a %s address, which a rule on a host name does not grant", e.Host, e.Addr, e.Class)
}

// Hint says how to grant the address on purpose.
func (e *AddrError) Hint() string {
	switch e.Class {
	case "loopback":
		return "to reach a service on this machine, name it in the rule as localhost, 127.0.0.1 or [::1]"
	case "private", "shared":
		return "to reach a private address, name it in the rule as an IP literal, or use a name under .internal, .lan, .home.arpa, .local, .corp, .intranet or .private"
	}
	return "to reach this address, name it in the rule as an IP literal"
}

// privateSuffixes are names that are private by convention (RFC 8375
// .home.arpa, RFC 6762 .local and its appendix G list, ICANN's reserved
// .internal): a rule on such a name may reach private addresses.
var privateSuffixes = []string{".internal", ".home.arpa", ".local", ".lan", ".corp", ".intranet", ".private"}

// IsLocalhostName reports whether canonical host h is "localhost" or a
// name under it (RFC 6761): loopback by definition, never looked up.
func IsLocalhostName(h string) bool {
	return h == "localhost" || strings.HasSuffix(h, ".localhost")
}

// CheckResolvedAddr decides whether a connection that a rule allowed to
// canonical host h (as CheckNetEndpoint matched it) may be made to a, an
// address h resolved to. A proxy outside the tool's network namespace
// would otherwise reach, on the tool's behalf, whatever the name's DNS
// points at: the host's own loopback services, the cloud metadata
// endpoint (169.254.169.254), the LAN. So:
//
//   - an IP literal grants exactly itself;
//   - localhost and *.localhost grant loopback addresses only;
//   - a name under a private-use suffix (.internal, .lan, ...) grants
//     public and private addresses (RFC 1918, ULA, CGNAT);
//   - any other name grants public addresses only.
//
// Loopback, link-local, unspecified, multicast and reserved addresses are
// never reached through a name other than localhost. Returns nil or an
// *AddrError.
func CheckResolvedAddr(h string, a netip.Addr) error {
	a = a.Unmap()
	if lit, ok := parseAddrLiteral(h); ok {
		if lit.Unmap() == a {
			return nil
		}
		return &AddrError{Host: h, Addr: a, Class: "different"}
	}
	class := AddrClass(a)
	ok := false
	switch {
	case IsLocalhostName(h):
		ok = class == "loopback"
	case hasPrivateSuffix(h):
		ok = class == "public" || class == "private" || class == "shared"
	default:
		ok = class == "public"
	}
	if ok {
		return nil
	}
	return &AddrError{Host: h, Addr: a, Class: class}
}

func hasPrivateSuffix(h string) bool {
	for _, s := range privateSuffixes {
		if strings.HasSuffix(h, s) {
			return true
		}
	}
	return false
}

var (
	cgnat      = netip.MustParsePrefix("100.64.0.0/10")
	thisNet    = netip.MustParsePrefix("0.0.0.0/8")
	reserved4  = netip.MustParsePrefix("240.0.0.0/4")
	ietf4      = netip.MustParsePrefix("192.0.0.0/24")
	bench4     = netip.MustParsePrefix("198.18.0.0/15")
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
	nat64local = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour  = netip.MustParsePrefix("2002::/16")
	v4compat   = netip.MustParsePrefix("::/96")
	siteLocal  = netip.MustParsePrefix("fec0::/10")
)

// AddrClass classifies an address for CheckResolvedAddr: "loopback",
// "unspecified", "link-local" (which holds the cloud metadata endpoints),
// "multicast", "private" (RFC 1918, IPv6 ULA and site-local), "shared"
// (CGNAT 100.64.0.0/10), "reserved" (this-network, 240/4, IETF and
// benchmarking ranges, IPv4-compatible IPv6, local NAT64) or "public".
// IPv6 forms that embed an IPv4 address (mapped, NAT64 64:ff9b::/96,
// 6to4 2002::/16) are classified by the embedded address.
func AddrClass(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case !a.IsValid():
		return "invalid"
	case a.IsLoopback():
		return "loopback"
	case a.IsUnspecified():
		return "unspecified"
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast():
		return "link-local"
	case a.IsMulticast():
		return "multicast"
	case a.IsPrivate(), siteLocal.Contains(a):
		return "private"
	}
	if a.Is4() {
		switch {
		case cgnat.Contains(a):
			return "shared"
		case thisNet.Contains(a), reserved4.Contains(a), ietf4.Contains(a), bench4.Contains(a):
			return "reserved"
		}
		return "public"
	}
	b := a.As16()
	switch {
	case nat64.Contains(a):
		return AddrClass(netip.AddrFrom4([4]byte(b[12:16])))
	case sixToFour.Contains(a):
		return AddrClass(netip.AddrFrom4([4]byte(b[2:6])))
	case v4compat.Contains(a), nat64local.Contains(a):
		return "reserved"
	}
	return "public"
}

// parseAddrLiteral is netip.ParseAddr for a host that may be a name: a
// name fails at its first letter past "f" without netip building an error
// (each one allocated, once per net rule of a lint). An address has only
// hex digits, dots and colons before its zone (FuzzParseAddrLiteral).
func parseAddrLiteral(h string) (netip.Addr, bool) {
	addr, _, _ := strings.Cut(h, "%")
	for i := 0; i < len(addr); i++ {
		switch c := addr[i]; {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f', c >= 'A' && c <= 'F', c == '.', c == ':':
		default:
			return netip.Addr{}, false
		}
	}
	a, err := netip.ParseAddr(h)
	return a, err == nil
}
