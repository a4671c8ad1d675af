package egress

import (
	"net"
	"net/netip"
	"strings"

	"golang.org/x/net/dns/dnsmessage"
)

// Resolver answers DNS queries over UDP from a fixed table: a granted
// name gets its address (A) or an empty answer (any other type, AAAA
// included: names have IPv4 addresses only), every other name NXDOMAIN.
// Nothing is ever forwarded, so no query for an ungranted name leaves
// the namespace, and nothing is allocated per query.
type Resolver struct {
	Names map[string]netip.Addr
}

// Serve answers queries on pc until it is closed.
func (r *Resolver) Serve(pc net.PacketConn) error {
	buf := make([]byte, 1500)
	for {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				continue
			}
			return err
		}
		if out, ok := r.Answer(buf[:n]); ok {
			_, _ = pc.WriteTo(out, from)
		}
	}
}

// Answer is the response to one query message, or false for a message
// that is no query (not answered at all).
func (r *Resolver) Answer(q []byte) ([]byte, bool) {
	var p dnsmessage.Parser
	h, err := p.Start(q)
	if err != nil || h.Response {
		return nil, false
	}
	rh := dnsmessage.Header{ID: h.ID, Response: true, OpCode: h.OpCode, Authoritative: true, RecursionDesired: h.RecursionDesired, RecursionAvailable: true}
	qs, err := p.AllQuestions()
	if err != nil || len(qs) != 1 || h.OpCode != 0 {
		rh.RCode = dnsmessage.RCodeFormatError
		if h.OpCode != 0 {
			rh.RCode = dnsmessage.RCodeNotImplemented
		}
		b := dnsmessage.NewBuilder(nil, rh)
		out, err := b.Finish()
		return out, err == nil
	}
	qq := qs[0]
	name := strings.ToLower(strings.TrimSuffix(qq.Name.String(), "."))
	addr, ok := r.Names[name]
	if !ok || qq.Class != dnsmessage.ClassINET {
		rh.RCode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(make([]byte, 0, 512), rh)
	b.EnableCompression()
	if b.StartQuestions() != nil || b.Question(qq) != nil {
		return nil, false
	}
	if ok && qq.Type == dnsmessage.TypeA && qq.Class == dnsmessage.ClassINET {
		if b.StartAnswers() != nil {
			return nil, false
		}
		rr := dnsmessage.ResourceHeader{Name: qq.Name, Type: dnsmessage.TypeA, Class: dnsmessage.ClassINET, TTL: 60}
		if b.AResource(rr, dnsmessage.AResource{A: addr.As4()}) != nil {
			return nil, false
		}
	}
	out, err := b.Finish()
	return out, err == nil
}
