package netproxy

import (
	"context"
	"errors"
	"net"
	"net/netip"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// Resolver looks up a name's addresses; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// loopbackAddrs are what localhost and *.localhost mean (RFC 6761); they
// are never looked up, so no resolver can point them elsewhere.
var loopbackAddrs = []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.IPv6Loopback()}

// dialDecided connects to canonical host h (as the policy matched it) on
// port. A name is resolved here exactly once per connection and only the
// addresses policy.CheckResolvedAddr grants are dialled, by IP: the
// address checked is the address connected to, so a resolver that
// answers differently a moment later (DNS rebinding) changes nothing.
// When every address is refused the error is a *policy.AddrError.
func (s *Server) dialDecided(ctx context.Context, h string, port int) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.DialTimeout)
	defer cancel()
	var addrs []netip.Addr
	switch lit, err := netip.ParseAddr(h); {
	case err == nil:
		addrs = []netip.Addr{lit}
	case policy.IsLocalhostName(h):
		addrs = loopbackAddrs
	default:
		found, err := s.resolver.LookupNetIP(ctx, "ip", h)
		if err != nil {
			return nil, err
		}
		var refused error
		for _, a := range found {
			if err := policy.CheckResolvedAddr(h, a); err != nil {
				if refused == nil {
					refused = err
				}
				continue
			}
			addrs = append(addrs, a.Unmap())
		}
		if len(addrs) == 0 {
			if refused == nil {
				refused = &net.DNSError{Err: "no addresses", Name: h, IsNotFound: true}
			}
			return nil, refused
		}
	}
	var firstErr error
	for _, a := range addrs {
		c, err := s.dial.DialContext(ctx, "tcp", netip.AddrPortFrom(a, uint16(port)).String())
		if err == nil {
			return c, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, firstErr
}

// addrRefusal reports whether err is a resolved address the policy
// refused (a decision, answered as one), not a network failure.
func addrRefusal(err error) (*policy.AddrError, bool) {
	var ae *policy.AddrError
	ok := errors.As(err, &ae)
	return ae, ok
}
