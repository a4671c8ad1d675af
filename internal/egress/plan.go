package egress

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// DNSAddr is where the resolver listens inside the namespace (UDP), and
// ResolvConf what the namespace's /etc/resolv.conf says.
const (
	DNSAddr    = "127.0.0.53:53"
	ResolvConf = "# jp-policy: only names the net rules grant resolve here\nnameserver 127.0.0.53\n"
)

// NameNet is the block granted names get their addresses from: one
// address per name, so the address a client connects to says which name
// it resolved.
var NameNet = netip.MustParsePrefix("127.77.0.0/16")

// maxNames bounds the names a plan gives addresses (far above any real
// rule set; the /16 holds about 65k).
const maxNames = 16384

// Endpoint is one listener inside the namespace: Addr ("a.b.c.d:port")
// stands for Hosts (canonical, as the policy matches them) on Port.
type Endpoint struct {
	Addr  string
	Hosts []string
	Port  int
}

// Plan is what a tool's net rules make reachable without a proxy.
type Plan struct {
	// Names maps each granted name (canonical, no trailing dot) to its
	// address in NameNet.
	Names map[string]netip.Addr
	// Endpoints are the listeners to open, in a stable order.
	Endpoints []Endpoint
	// Ports are the TCP ports of Endpoints (the tool's Landlock connect
	// rules), sorted, without repeats.
	Ports []uint16
	// Degraded says which granted endpoints have no direct address (an
	// IPv6 literal, a non-loopback IP literal): reachable through the
	// proxy only.
	Degraded []string
}

// New plans the rules. Deny rules need no listener: a connection they
// refuse is refused by the decision at accept. reserved are addresses
// already listened on inside the namespace (the proxy's): an endpoint
// there is left to that listener and named in Degraded.
func New(rules []policy.NetRule, reserved ...string) (*Plan, error) {
	p := &Plan{Names: map[string]netip.Addr{}}
	byAddr := map[string]int{}
	literals := map[netip.Addr]bool{}
	type grant struct {
		host  string
		ports []int
	}
	var grants []grant
	for _, r := range rules {
		if !r.Allow {
			continue
		}
		h, err := policy.NormalizeHost(r.Host)
		if err != nil {
			return nil, fmt.Errorf("net rule host %q: %w", r.Host, err)
		}
		var ports []int
		switch {
		case r.Port != nil:
			ports = []int{int(*r.Port)}
		case r.Scheme != nil:
			d, _ := policy.DefaultPort(*r.Scheme)
			ports = []int{int(d)}
		default:
			// A rule without scheme or port matches a scheme's default
			// port: the web's two.
			ports = []int{80, 443}
		}
		ports = slices.DeleteFunc(ports, func(n int) bool { return n <= 0 || n > 65535 })
		if a, err := netip.ParseAddr(h); err == nil {
			literals[a.Unmap()] = true
		}
		grants = append(grants, grant{h, ports})
	}
	next := NameNet.Addr().Next()
	for _, g := range grants {
		var at netip.Addr
		switch a, err := netip.ParseAddr(g.host); {
		case err == nil:
			a = a.Unmap()
			if !a.Is4() || !a.IsLoopback() {
				p.Degraded = append(p.Degraded, g.host+": only loopback IPv4 literals have a direct address in the namespace (the proxy serves the rest)")
				continue
			}
			at = a
		case policy.IsLocalhostName(g.host):
			at = netip.AddrFrom4([4]byte{127, 0, 0, 1})
		default:
			got, ok := p.Names[g.host]
			if !ok {
				if len(p.Names) >= maxNames {
					return nil, fmt.Errorf("more than %d granted names", maxNames)
				}
				for literals[next] {
					next = next.Next()
				}
				if !NameNet.Contains(next) || next == netip.AddrFrom4([4]byte{127, 77, 255, 255}) {
					return nil, fmt.Errorf("more granted names than %s holds", NameNet)
				}
				got = next
				next = next.Next()
				p.Names[g.host] = got
			}
			at = got
		}
		for _, port := range g.ports {
			addr := netip.AddrPortFrom(at, uint16(port)).String()
			if addr == DNSAddr || slices.Contains(reserved, addr) {
				p.Degraded = append(p.Degraded, g.host+":"+strconv.Itoa(port)+": "+addr+" is taken by the sandbox's own resolver or proxy")
				continue
			}
			i, ok := byAddr[addr]
			if !ok {
				i = len(p.Endpoints)
				byAddr[addr] = i
				p.Endpoints = append(p.Endpoints, Endpoint{Addr: addr, Port: port})
			}
			if !slices.Contains(p.Endpoints[i].Hosts, g.host) {
				p.Endpoints[i].Hosts = append(p.Endpoints[i].Hosts, g.host)
			}
			if !slices.Contains(p.Ports, uint16(port)) {
				p.Ports = append(p.Ports, uint16(port))
			}
		}
	}
	slices.Sort(p.Ports)
	return p, nil
}

// String is the plan in a line a report can show.
func (e Endpoint) String() string {
	return e.Addr + " -> " + e.Hosts[0] + ":" + strconv.Itoa(e.Port)
}
