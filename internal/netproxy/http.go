package netproxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jp-policy/jp-policy/policy"
)

type ctxKey struct{}

// upstream carries the decided "host:port" of a forwarded request to
// the Rewrite hook.
type upstream struct {
	hostport, hostHeader string
	entry                LogEntry // for a resolved address refused at dial
}

// serveHTTP handles one request on an HTTP proxy connection: CONNECT
// opens a tunnel, an absolute-form http:// request is decided and
// forwarded. Each request on a kept-alive connection is decided on its
// own, since each may name another host.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		s.serveCONNECT(w, r)
		return
	}
	if !r.URL.IsAbs() || r.URL.Host == "" {
		plainError(w, http.StatusBadRequest, "jp-policy proxy: this is a forward proxy; send absolute-form requests (GET http://host/path) or CONNECT host:port\n")
		return
	}
	if r.URL.Scheme != "http" {
		plainError(w, http.StatusBadRequest, fmt.Sprintf("jp-policy proxy: only http:// requests are forwarded, not %s://; use CONNECT (HTTPS_PROXY) for TLS\n", r.URL.Scheme))
		return
	}
	if r.Header.Get("Upgrade") != "" {
		// A protocol switch would turn the request into a raw tunnel that
		// http.Server no longer tracks (Close could not end it); WebSocket
		// clients use CONNECT through a proxy anyway.
		plainError(w, http.StatusBadRequest, "jp-policy proxy: protocol upgrades are not forwarded on the plain HTTP path; use CONNECT (HTTPS_PROXY) for WebSockets\n")
		return
	}
	if hasDotSegment(r.URL.Path) {
		// The policy matches the dot-cleaned path, but a server may
		// resolve the segments differently (or not at all); refusing
		// keeps the decided path and the served path the same. Clients
		// remove dot segments before sending.
		plainError(w, http.StatusBadRequest, "jp-policy proxy: request path "+strconv.Quote(r.URL.Path)+" has \".\" or \"..\" segments; send the resolved path\n")
		return
	}
	host := r.URL.Hostname()
	port := -1
	if ps := r.URL.Port(); ps != "" {
		n, err := strconv.ParseUint(ps, 10, 16)
		if err != nil {
			plainError(w, http.StatusBadRequest, "jp-policy proxy: port "+strconv.Quote(ps)+" is not a TCP port\n")
			return
		}
		port = int(n)
	}
	p := r.URL.Path
	if p == "" {
		p = "/"
	}
	d, canon := s.decide("http", host, port, p)
	logPort := port
	if logPort < 0 {
		logPort = 80
	}
	entry := LogEntry{Client: r.RemoteAddr, Kind: "http", Method: r.Method, Scheme: "http", Host: host, Canonical: canon, Port: logPort, Path: p}
	s.logDecision(entry, d)
	if !d.Allowed {
		refuse(w, d)
		return
	}
	hostHeader := bracket(canon)
	if port >= 0 {
		hostHeader += ":" + strconv.Itoa(port)
	}
	up := upstream{hostport: net.JoinHostPort(canon, strconv.Itoa(logPort)), hostHeader: hostHeader, entry: entry}
	s.rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, up)))
}

// rewrite points the outgoing request at the decided upstream: the
// canonical host the policy matched, never a name the client resolved.
// ReverseProxy has already removed hop-by-hop headers (Connection and
// what it lists, Proxy-Connection, Proxy-Authorization, Keep-Alive, TE,
// Trailer, Transfer-Encoding, Upgrade unless switching protocols).
func rewrite(pr *httputil.ProxyRequest) {
	up := pr.In.Context().Value(ctxKey{}).(upstream)
	pr.Out.URL.Scheme = "http"
	pr.Out.URL.Host = up.hostport
	pr.Out.URL.User = nil
	pr.Out.Host = up.hostHeader
}

// decide asks Config.Decide and returns the host to dial: the policy's
// canonical form. A decider that allows a host the policy cannot
// canonicalise is overruled (fail closed), so nothing unnormalised is
// ever dialled.
func (s *Server) decide(scheme, host string, port int, reqPath string) (policy.Decision, string) {
	d := s.cfg.Decide(scheme, host, port, reqPath)
	canon, err := policy.NormalizeHost(host)
	if err != nil && d.Allowed {
		d.Allowed = false
		d.Err = &policy.InputError{Resource: "net", Input: host, Msg: err.Error()}
	}
	return d, canon
}

// serveCONNECT decides and opens a tunnel. CONNECT is how clients reach
// https:// (and wss://, and other TLS) through HTTPS_PROXY, so it is
// decided as scheme https with the path hidden.
func (s *Server) serveCONNECT(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Connection", "close")
	if r.URL.Host == "" || r.URL.Path != "" || r.URL.RawQuery != "" || r.URL.User != nil {
		// "CONNECT /x" takes its target from the Host header and
		// "CONNECT host:443/x" carries a path no tunnel has: neither is
		// the authority form (RFC 9110 9.3.6) clients send.
		plainError(w, http.StatusBadRequest, "jp-policy proxy: CONNECT needs the authority form host:port, got "+strconv.Quote(r.RequestURI)+"\n")
		return
	}
	host, ps, err := net.SplitHostPort(r.Host)
	if err != nil {
		plainError(w, http.StatusBadRequest, "jp-policy proxy: CONNECT needs host:port, got "+strconv.Quote(r.Host)+"\n")
		return
	}
	n, err := strconv.ParseUint(ps, 10, 16)
	if err != nil {
		plainError(w, http.StatusBadRequest, "jp-policy proxy: port "+strconv.Quote(ps)+" is not a TCP port\n")
		return
	}
	port := int(n)
	d, canon := s.decide("https", host, port, "")
	entry := LogEntry{Client: r.RemoteAddr, Kind: "connect", Method: r.Method, Scheme: "https", Host: host, Canonical: canon, Port: port}
	s.logDecision(entry, d)
	if !d.Allowed {
		refuse(w, d)
		return
	}
	// The decided port, not the client's spelling of it ("0443").
	up, err := s.dialDecided(r.Context(), canon, port)
	if err != nil {
		if ae, ok := addrRefusal(err); ok {
			s.logAddrRefusal(entry, ae)
			refuseAddr(w, ae)
			return
		}
		plainError(w, http.StatusBadGateway, "jp-policy proxy: cannot reach "+net.JoinHostPort(canon, strconv.Itoa(port))+": "+err.Error()+"\n")
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		plainError(w, http.StatusInternalServerError, "jp-policy proxy: connection cannot be taken over\n")
		return
	}
	c, brw, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	c.SetDeadline(time.Time{})
	if _, err := c.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		c.Close()
		up.Close()
		return
	}
	s.tunnel(c, brw.Reader, up)
}

// tunnel copies both ways between client c (after the bytes already
// buffered in br) and upstream up until both directions end, then closes
// both.
func (s *Server) tunnel(c net.Conn, br *bufio.Reader, up net.Conn) {
	raw := unwrap(c)
	if !s.track(raw, up) {
		raw.Close()
		up.Close()
		return
	}
	defer s.wg.Done()
	defer s.untrack(raw, up)
	defer raw.Close()
	defer up.Close()
	if br != nil && br.Buffered() > 0 {
		b, _ := br.Peek(br.Buffered())
		if _, err := up.Write(b); err != nil {
			return
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := copyConn(up, raw); err != nil {
			// A reset on one side ends the other too.
			raw.Close()
		}
		closeWrite(up)
	}()
	if _, err := copyConn(raw, up); err != nil {
		up.Close()
	}
	closeWrite(raw)
	<-done
}

func unwrap(c net.Conn) net.Conn {
	if p, ok := c.(*prefixConn); ok && len(p.pre) == 0 {
		return p.Conn
	}
	return c
}

// spliceTunnels makes tunnels use io.Copy, which on a *net.TCPConn pair
// becomes splice(2) on Linux. Measured on loopback (docs/netproxy.md), a
// plain read/write loop with a 128 KiB buffer moves bytes about twice as
// fast: TCP-to-TCP splice goes through a 64 KiB pipe and still copies on
// loopback, at more syscalls per byte. The benchmark flips this to keep
// the comparison honest.
var spliceTunnels = false

const copyBufSize = 128 << 10

var copyBufs = sync.Pool{New: func() any { b := make([]byte, copyBufSize); return &b }}

// copyConn copies src to dst until EOF or an error.
func copyConn(dst, src net.Conn) (int64, error) {
	if spliceTunnels {
		return io.Copy(rawConn(dst), rawConn(src))
	}
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	// The wrappers hide ReaderFrom/WriterTo so CopyBuffer uses the buffer.
	return io.CopyBuffer(struct{ io.Writer }{dst}, struct{ io.Reader }{src}, *bp)
}

// rawConn is the connection under a slotConn, so io.Copy can splice.
func rawConn(c net.Conn) net.Conn {
	if sc, ok := c.(*slotConn); ok {
		return sc.Conn
	}
	return c
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
}

// refuse answers a refused request with 403 and the decision as `jp-policy
// check net` prints it.
func refuse(w http.ResponseWriter, d policy.Decision) {
	w.Header().Set("X-Jp-Policy", "denied")
	plainError(w, http.StatusForbidden, "jp-policy proxy: "+d.Human())
}

// refuseAddr answers a request whose allowed name resolved only to
// addresses the rule does not grant (policy.CheckResolvedAddr).
func refuseAddr(w http.ResponseWriter, ae *policy.AddrError) {
	w.Header().Set("X-Jp-Policy", "denied")
	plainError(w, http.StatusForbidden, "jp-policy proxy: "+ae.Error()+"\n  hint: "+ae.Hint()+"\n")
}

func plainError(w http.ResponseWriter, code int, body string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	w.Write([]byte(body))
}

// upstreamError answers a forwarded request whose upstream failed.
func (s *Server) upstreamError(w http.ResponseWriter, r *http.Request, err error) {
	target := ""
	up, ok := r.Context().Value(ctxKey{}).(upstream)
	if ok {
		target = up.hostport
	}
	if ae, isAddr := addrRefusal(err); isAddr {
		s.logAddrRefusal(up.entry, ae)
		refuseAddr(w, ae)
		return
	}
	plainError(w, http.StatusBadGateway, "jp-policy proxy: cannot reach "+target+": "+err.Error()+"\n")
}

// Servers disagree on what a dot segment is, so the check is done as the
// most permissive of them would read the path: a backslash separates
// segments (IIS and several frameworks), ";params" are cut from a segment
// (Tomcat and Jetty read "..;" as ".."), and the path is percent-decoded
// again, up to three times (servers that decode twice see %252e%252e as
// ".."). Any reading that yields "." or ".." refuses the request.
func hasDotSegment(p string) bool {
	for range 4 {
		for _, seg := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
			if i := strings.IndexByte(seg, ';'); i >= 0 {
				seg = seg[:i]
			}
			if seg == "." || seg == ".." {
				return true
			}
		}
		d, err := url.PathUnescape(p)
		if err != nil || d == p {
			break
		}
		p = d
	}
	return false
}

func bracket(h string) string {
	if strings.IndexByte(h, ':') >= 0 {
		return "[" + h + "]"
	}
	return h
}
