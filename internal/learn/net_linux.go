//go:build linux

package learn

import (
	"context"
	"encoding/binary"
	"net/netip"
	"time"

	"golang.org/x/net/dns/dnsmessage"
	"golang.org/x/sys/unix"
)

// sockaddr reads a connect(2) address. It returns the TCP or UDP
// endpoint to record (IPv4 or IPv6), or dns = 1 for a connect to port 53,
// whose socket then carries a resolver's queries. Unix-domain paths are
// kept in Obs.Unix.
func (t *tracer) sockaddr(tid int, addr, n uint64) (c *Connect, dns int) {
	b, ok := readBytes(tid, addr, int(min(n, 128)))
	if !ok || len(b) < 2 {
		return nil, -1
	}
	var ip netip.Addr
	var port uint16
	switch binary.LittleEndian.Uint16(b) {
	case unix.AF_INET:
		if len(b) < 8 {
			return nil, -1
		}
		port = binary.BigEndian.Uint16(b[2:4])
		ip = netip.AddrFrom4([4]byte(b[4:8]))
	case unix.AF_INET6:
		if len(b) < 24 {
			return nil, -1
		}
		port = binary.BigEndian.Uint16(b[2:4])
		ip = netip.AddrFrom16([16]byte(b[8:24])).Unmap()
	case unix.AF_UNIX:
		path := b[2:]
		for i, x := range path {
			if x == 0 {
				path = path[:i]
				break
			}
		}
		if len(path) > 0 {
			t.obs.Unix = append(t.obs.Unix, string(path))
		}
		return nil, -1
	default:
		return nil, -1
	}
	if port == 53 {
		return nil, 1
	}
	if port == 0 || ip.IsUnspecified() {
		return nil, -1
	}
	return &Connect{Addr: ip.String(), Port: port}, -1
}

// dnsQuery records the names a resolver asks for: a send on a socket
// connected to port 53, or a sendto to port 53. Names are matched to
// addresses after the run (resolveNames).
func (t *tracer) dnsQuery(tid int, k kind, fd int, a [6]uint64) {
	var bufs [][2]uint64 // (addr, len)
	switch k {
	case kSendto:
		if !t.dnsFDs[[2]int{tid, fd}] {
			if _, dns := t.sockaddr(tid, a[4], a[5]); dns != 1 {
				return
			}
		}
		bufs = append(bufs, [2]uint64{a[1], a[2]})
	case kSendmsg, kSendmmsg:
		if !t.dnsFDs[[2]int{tid, fd}] {
			return
		}
		// struct msghdr: name, namelen, iov, iovlen, ...; an mmsghdr
		// starts with one. The first iovec of each message holds a
		// resolver's whole query.
		count := uint64(1)
		stride := uint64(56) // sizeof(struct msghdr)
		if k == kSendmmsg {
			count = min(a[2], 8)
			stride = 64 // sizeof(struct mmsghdr)
		}
		for i := uint64(0); i < count; i++ {
			hdr, ok := readBytes(tid, a[1]+i*stride, 56)
			if !ok {
				return
			}
			iov, ok := readBytes(tid, binary.LittleEndian.Uint64(hdr[16:24]), 16)
			if !ok {
				return
			}
			bufs = append(bufs, [2]uint64{binary.LittleEndian.Uint64(iov[0:8]), binary.LittleEndian.Uint64(iov[8:16])})
		}
	}
	for _, bl := range bufs {
		msg, ok := readBytes(tid, bl[0], int(min(bl[1], 512)))
		if !ok {
			continue
		}
		var p dnsmessage.Parser
		if _, err := p.Start(msg); err != nil {
			continue
		}
		for {
			q, err := p.Question()
			if err != nil {
				break
			}
			name := q.Name.String()
			// Under exec --denials no name is looked up, so none is
			// kept (the tool would choose how many).
			if len(name) > 1 && !t.denials {
				t.names[name[:len(name)-1]] = true
			}
		}
	}
}

// resolveNames gives each connected address the name the command asked
// the resolver for, where a lookup of that name now answers with the
// same address (a name that rotates its addresses may be missed, and its
// connects keep their address).
func (t *tracer) resolveNames() {
	if len(t.names) == 0 {
		return
	}
	byAddr := map[string]string{}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for name := range t.names {
		addrs, err := t.lookup(ctx, "ip", name)
		if err != nil {
			continue
		}
		for _, a := range addrs {
			s := a.Unmap().String()
			if old, ok := byAddr[s]; !ok || name < old {
				byAddr[s] = name
			}
		}
	}
	for i := range t.obs.Connects {
		if n, ok := byAddr[t.obs.Connects[i].Addr]; ok {
			t.obs.Connects[i].Name = n
		}
	}
}
