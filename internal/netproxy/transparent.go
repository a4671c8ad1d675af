package netproxy

import (
	"bufio"
	"errors"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// Transparent connections: a client that ignores the proxy variables
// connects straight to an address inside the tool's network namespace
// that stands for one granted endpoint (package egress hands out those
// addresses and their listeners). The listener, not the client, names
// the destination: Hosts are the granted names that address stands for
// and Port is its port. Each connection is decided by the same Decider
// as a proxied one and logged in the same log, with Kind "transparent":
//   - TLS (a ClientHello first; clienthello.go): decided as CONNECT is ("https", no
//     path); a server name in the ClientHello must be one of Hosts, and
//     the bytes are relayed unchanged (no interception).
//   - HTTP (a request line first): every request on the connection is
//     decided with its path, as the proxy decides an absolute-form
//     request; the Host header must name one of Hosts at Port.
//   - anything else, or nothing within serverFirstWait (protocols whose
//     server speaks first): decided as a SOCKS CONNECT to the port is.

// Target is what one transparent listener stands for.
type Target struct {
	Hosts []string // granted names (or IP literals) at this address; Hosts[0] is dialled for a non-HTTP stream
	Port  int
}

// serverFirstWait is how long a transparent connection waits for the
// client's first byte before treating the protocol as one whose server
// speaks first (MySQL, SMTP) and deciding it without a look at the bytes.
const serverFirstWait = 300 * time.Millisecond

// ServeTransparent accepts connections on l for t until Close or
// Shutdown. It may run beside Serve and for several listeners.
func (s *Server) ServeTransparent(l net.Listener, t Target) error {
	s.mu.Lock()
	if s.closed || s.draining {
		s.mu.Unlock()
		l.Close()
		return ErrServerClosed
	}
	s.extra = append(s.extra, l)
	s.mu.Unlock()
	return s.acceptLoop(l, func(c net.Conn) { s.handleTransparent(c, t) })
}

func (s *Server) handleTransparent(c net.Conn, t Target) {
	defer s.wg.Done()
	defer s.removeConn(c)
	defer c.Close()
	br := bufio.NewReaderSize(c, 4<<10)
	c.SetReadDeadline(time.Now().Add(serverFirstWait))
	b, err := br.Peek(1)
	c.SetDeadline(time.Now().Add(s.cfg.HeaderTimeout))
	switch {
	case err != nil && !timedOut(err):
		return
	case err == nil && b[0] == 0x16:
		s.transparentTLS(c, br, t)
	case err == nil && looksHTTP(br):
		hc := &httpConn{s: s, c: c, br: br, bw: bufio.NewWriterSize(c, 4<<10), target: &t}
		defer hc.parkUpstream()
		hc.loop()
	default:
		s.transparentStream(c, br, t, nil)
	}
}

func timedOut(err error) bool {
	ne, ok := errors.AsType[net.Error](err)
	return ok && ne.Timeout()
}

// looksHTTP reports whether the buffered bytes start an HTTP/1 request
// line: a method token, a space, and an origin-form, absolute-form or
// asterisk target. It reads at most a short prefix.
func looksHTTP(br *bufio.Reader) bool {
	for n := 1; n <= 24; n++ {
		b, err := br.Peek(n)
		if err != nil {
			return false
		}
		c := b[n-1]
		switch {
		case c == ' ' && n > 1:
			nb, err := br.Peek(n + 1)
			if err != nil {
				return false
			}
			x := nb[n]
			return x == '/' || x == '*' || x == 'h' || x == 'H'
		case c >= 'A' && c <= 'Z' || c == '-' || c == '_':
		default:
			return false
		}
	}
	return false
}

// transparentTLS reads the ClientHello (readClientHello; nothing is
// answered), checks its server name against t, and relays the stream.
func (s *Server) transparentTLS(c net.Conn, br *bufio.Reader, t Target) {
	hello, sni, err := readClientHello(br)
	if err != nil {
		return // not a ClientHello this parser takes: fail closed
	}
	if sni != "" && !hasHost(t.Hosts, sni) {
		d := policy.Decision{Err: &policy.InputError{Resource: "net", Input: sni, Msg: "the TLS server name is not the host this address stands for (" + t.Hosts[0] + ")"}}
		s.logDecision(LogEntry{Client: c.RemoteAddr().String(), Kind: "transparent", Scheme: "https", Host: sni, Port: t.Port}, d)
		return
	}
	host := t.Hosts[0]
	if sni != "" {
		host = sni
	}
	s.transparentStream(c, br, t, &tlsStart{host: host, hello: hello})
}

type tlsStart struct {
	host  string
	hello []byte
}

// transparentStream decides and relays a connection whose bytes are not
// looked into (beyond a TLS ClientHello already read into ts.hello).
func (s *Server) transparentStream(c net.Conn, br *bufio.Reader, t Target, ts *tlsStart) {
	host, scheme := t.Hosts[0], socksScheme(t.Port)
	if ts != nil {
		host, scheme = ts.host, "https"
	}
	d, canon := s.decide(scheme, host, t.Port, "")
	entry := LogEntry{Client: c.RemoteAddr().String(), Kind: "transparent", Scheme: scheme, Host: host, Canonical: canon, Port: t.Port}
	s.logDecision(entry, d)
	if !d.Allowed {
		return
	}
	up, err := s.dialDecided(s.ctx, canon, t.Port)
	if err != nil {
		if ae, ok := addrRefusal(err); ok {
			s.logAddrRefusal(entry, ae)
		}
		return
	}
	c.SetDeadline(time.Time{})
	if ts != nil {
		if _, err := up.Write(ts.hello); err != nil {
			up.Close()
			return
		}
	}
	s.tunnel(c, br, up)
}

func hasHost(hosts []string, h string) bool {
	n, err := policy.NormalizeHost(h)
	if err != nil {
		return false
	}
	return slices.Contains(hosts, n)
}

// transparentURL turns a request received on a transparent listener into
// the absolute-form URL the proxy decides, or the reason to refuse it:
// the Host header (or an absolute-form target) must name one of the
// hosts the listener's address stands for, at its port.
func (t *Target) transparentURL(h *requestHead) (*url.URL, string) {
	if h.method == "CONNECT" {
		return nil, "CONNECT is not taken on a direct connection"
	}
	u := h.url
	authority := h.host
	if u.IsAbs() {
		authority = u.Host
	} else if !h.hasHost || h.host == "" {
		return nil, "a direct connection's request needs a Host header naming the host"
	}
	name, port := authority, t.Port
	if hh, ps, err := net.SplitHostPort(authority); err == nil {
		n, err := strconv.ParseUint(ps, 10, 16)
		if err != nil {
			return nil, "port " + strconv.Quote(ps) + " is not a TCP port"
		}
		name, port = hh, int(n)
	} else if !strings.Contains(authority, ":") || strings.HasPrefix(authority, "[") {
		name = strings.Trim(authority, "[]")
		if p, ok := policy.DefaultPort("http"); ok {
			port = int(p)
		}
	}
	if !hasHost(t.Hosts, name) || port != t.Port {
		return nil, "Host " + strconv.Quote(authority) + " is not the endpoint this address stands for (" + net.JoinHostPort(t.Hosts[0], strconv.Itoa(t.Port)) + ")"
	}
	out := *u
	out.Scheme, out.Host, out.Opaque = "http", net.JoinHostPort(name, strconv.Itoa(t.Port)), ""
	return &out, ""
}
