package netproxy

import (
	"bufio"
	"errors"
	"io"
	"iter"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// httpConn is one HTTP proxy client connection and the upstream
// connection it holds, if any. An upstream connection is reused only for
// the same decided host:port; between client connections it waits in
// the server's idle pool (upstream.go).
type httpConn struct {
	s  *Server
	c  net.Conn
	br *bufio.Reader
	bw *bufio.Writer

	up     net.Conn
	upBR   *bufio.Reader
	upBW   *bufio.Writer
	upKey  string // the decided "canonical-host:port" up is connected to
	upIdle bool   // up finished its last exchange cleanly and can be reused

	// target is set on a transparent connection (transparent.go): the
	// endpoint its listener stands for, which every request must name.
	target *Target
}

// serveHTTP runs an HTTP proxy connection: requests one after another,
// each decided on its own (each may name another host), until the
// client closes, asks to close, or sends something that cannot be
// framed. CONNECT ends the loop in a tunnel.
func (s *Server) serveHTTP(c net.Conn, br *bufio.Reader) {
	hc := &httpConn{s: s, c: c, br: br, bw: bufio.NewWriterSize(c, 4<<10)}
	defer hc.parkUpstream()
	hc.loop()
}

// loop serves requests until the connection cannot carry another.
func (hc *httpConn) loop() {
	s, c, br := hc.s, hc.c, hc.br
	for first := true; ; first = false {
		if !first {
			// Between requests the connection is idle: Shutdown may
			// close it, and IdleTimeout bounds the wait for the next
			// request's first byte; HeaderTimeout then bounds its head.
			if !s.setIdle(c, true) {
				return
			}
			c.SetReadDeadline(time.Now().Add(s.cfg.IdleTimeout))
			_, err := br.Peek(1)
			if !s.setIdle(c, false) || err != nil {
				return
			}
			c.SetReadDeadline(time.Now().Add(s.cfg.HeaderTimeout))
		}
		h, err := readRequestHead(br, s.cfg.MaxHeaderBytes)
		if err != nil {
			if he, ok := errors.AsType[*headError](err); ok {
				hc.reply(nil, he.status, nil, "jp-policy proxy: "+he.msg+"\n")
			}
			return
		}
		// No deadline while a request is served: handle's covered
		// writes too, and a download may take longer than a head.
		c.SetDeadline(time.Time{})
		if !hc.serve(h) {
			return
		}
	}
}

// serve answers one request and reports whether the connection can
// carry another.
func (hc *httpConn) serve(h *requestHead) bool {
	kind := "http"
	if hc.target != nil {
		kind = "transparent"
		u, why := hc.target.transparentURL(h)
		if why != "" {
			d := policy.Decision{Err: &policy.InputError{Resource: "net", Input: h.host, Msg: why}}
			hc.s.logDecision(LogEntry{Client: hc.c.RemoteAddr().String(), Kind: kind, Method: h.method, Scheme: "http", Host: h.host, Port: hc.target.Port}, d)
			h.close = true
			return hc.reply(h, 403, denied, "jp-policy: "+why+"\n")
		}
		h.url = u
	}
	if h.method == "CONNECT" {
		hc.connect(h)
		return false
	}
	u := h.url
	if !u.IsAbs() || u.Host == "" {
		return hc.reply(h, 400, nil, "jp-policy proxy: this is a forward proxy; send absolute-form requests (GET http://host/path) or CONNECT host:port\n")
	}
	if u.Scheme != "http" {
		return hc.reply(h, 400, nil, "jp-policy proxy: only http:// requests are forwarded, not "+u.Scheme+"://; use CONNECT (HTTPS_PROXY) for TLS\n")
	}
	if u.User != nil {
		// Clients send credentials in Authorization, never in the
		// target; "http://allowed@evil/" only misleads a reader.
		return hc.reply(h, 400, nil, "jp-policy proxy: request target "+strconv.Quote(h.target)+" has userinfo; send credentials in the Authorization header\n")
	}
	if h.upgrade {
		// A protocol switch would turn the request into a raw tunnel
		// past the framing the proxy checks; WebSocket clients use
		// CONNECT through a proxy anyway.
		return hc.reply(h, 400, nil, "jp-policy proxy: protocol upgrades are not forwarded on the plain HTTP path; use CONNECT (HTTPS_PROXY) for WebSockets\n")
	}
	if h.expect != "" && (h.minor == 0 || !strings.EqualFold(h.expect, "100-continue")) {
		return hc.reply(h, 417, nil, "jp-policy proxy: unsupported Expect "+strconv.Quote(h.expect)+"\n")
	}
	if hasDotSegment(u.Path) {
		// The policy matches the dot-cleaned path, but a server may
		// resolve the segments differently (or not at all); refusing
		// keeps the decided path and the served path the same. Clients
		// remove dot segments before sending.
		return hc.reply(h, 400, nil, "jp-policy proxy: request path "+strconv.Quote(u.Path)+" has \".\" or \"..\" segments; send the resolved path\n")
	}
	if networkPath(u.EscapedPath()) {
		// "//x/secret" is the authority "x" and the path "/secret" to a
		// server that resolves its request target as a URI reference
		// (Node's new URL(req.url, base), many routers), while the
		// policy matches the cleaned "/x/secret".
		return hc.reply(h, 400, nil, "jp-policy proxy: request path "+strconv.Quote(u.EscapedPath())+" starts with two slashes, which a server may read as //host/path; send the path without the empty first segment\n")
	}
	host := u.Hostname()
	port := -1
	if ps := u.Port(); ps != "" {
		n, err := strconv.ParseUint(ps, 10, 16)
		if err != nil {
			return hc.reply(h, 400, nil, "jp-policy proxy: port "+strconv.Quote(ps)+" is not a TCP port\n")
		}
		port = int(n)
	}
	p := u.Path
	if p == "" {
		p = "/"
	}
	s := hc.s
	d, canon := s.decide("http", host, port, p)
	reading := "" // the reading of p that was denied, when not p
	if d.Allowed {
		// Servers disagree on what path a target names (";params" cut
		// by Servlet containers, Spring and urlparse, a backslash read
		// as a slash, a second percent-decoding): the request is
		// allowed only if the policy allows every reading, so a deny
		// rule holds whichever one the server takes.
		for r := range otherReadings(p) {
			if dr, _ := s.decide("http", host, port, r); !dr.Allowed {
				d, reading = dr, r
				break
			}
		}
	}
	if d.Allowed {
		// Servers with case-insensitive paths (IIS, some routers) serve
		// /api/ADMIN as /api/admin. A lower-cased reading is refused
		// only by a deny rule that names it: a case-sensitive allow
		// rule ("/Docs/") must not turn "/Docs/x" away.
		for r := range allReadings(p) {
			l := strings.ToLower(r)
			if l == r {
				continue
			}
			if dr, _ := s.decide("http", host, port, l); !dr.Allowed {
				if rule, ok := dr.Rule.(policy.NetRule); ok && !rule.Allow {
					d, reading = dr, l
					break
				}
			}
		}
	}
	logPort := port
	if logPort < 0 {
		logPort = 80
	}
	entry := LogEntry{Client: hc.c.RemoteAddr().String(), Kind: kind, Method: h.method, Scheme: "http", Host: host, Canonical: canon, Port: logPort, Path: p}
	s.logDecision(entry, d)
	if !d.Allowed {
		msg := "jp-policy proxy: " + d.Human()
		if reading != "" {
			msg = "jp-policy proxy: request path " + strconv.Quote(p) + " is served as " + strconv.Quote(reading) + " by some servers, which the policy denies\n" + msg
		}
		return hc.reply(h, 403, denied, msg)
	}
	hostHeader := bracket(canon)
	if port >= 0 {
		hostHeader += ":" + strconv.Itoa(port)
	}
	return hc.forward(h, net.JoinHostPort(canon, strconv.Itoa(logPort)), canon, logPort, hostHeader, entry)
}

// bodyGrace is how long a response waits for its request body to finish
// being sent before the client connection is given up (see relay).
const bodyGrace = 100 * time.Millisecond

// maxInterim bounds the 1xx responses skipped before a final one.
const maxInterim = 16

// denied marks a policy refusal.
var denied = []field{{"X-Jp-Policy", "denied"}}

// forward sends an allowed request to the decided upstream and relays
// the response.
func (hc *httpConn) forward(h *requestHead, key, canon string, port int, hostHeader string, entry LogEntry) bool {
	head := requestHeadFor(h, hostHeader)
	for attempt := 0; ; attempt++ {
		if hc.up != nil && hc.upKey != key {
			hc.parkUpstream()
		}
		if hc.up != nil && !idleClean(hc.up) {
			// Bytes the upstream sent while the connection waited
			// for this request answer no request of ours.
			hc.dropUpstream()
		}
		for hc.up == nil && attempt == 0 {
			ic, ok := hc.s.takeIdle(key)
			if !ok {
				break
			}
			if !idleClean(ic.c) {
				ic.c.Close()
				hc.s.removeConn(ic.c)
				continue
			}
			hc.up, hc.upBR, hc.upBW, hc.upKey = ic.c, ic.br, ic.bw, key
		}
		reused := hc.up != nil
		hc.upIdle = false
		if !reused {
			up, err := hc.s.dialDecided(hc.s.ctx, canon, port)
			if err != nil {
				if ae, ok := addrRefusal(err); ok {
					hc.s.logAddrRefusal(entry, ae)
					return hc.reply(h, 403, denied, "jp-policy proxy: "+ae.Error()+"\n  hint: "+ae.Hint()+"\n")
				}
				return hc.reply(h, 502, nil, "jp-policy proxy: cannot reach "+key+": "+err.Error()+"\n")
			}
			if !hc.s.addConn(up) {
				up.Close()
				return false
			}
			hc.up, hc.upKey = up, key
			hc.upBR = bufio.NewReaderSize(up, 4<<10)
			hc.upBW = bufio.NewWriterSize(up, 4<<10)
		}
		w := &clientWatch{exited: make(chan struct{})}
		if !h.hasBody() {
			hc.upBW.WriteString(head)
			err := hc.upBW.Flush()
			if err == nil {
				go hc.watchClient(hc.up, w)
				_, err = hc.upBR.Peek(1)
			} else {
				close(w.exited)
			}
			if err != nil && reused && attempt == 0 && replayable(h) {
				// The kept connection was closed by the upstream while
				// idle; a request without a body that is safe to repeat
				// is sent again on a new one, as net/http's transport
				// does (the upstream may have read it before closing).
				left := hc.stopWatch(w)
				hc.dropUpstream()
				if left {
					return false
				}
				continue
			}
			return hc.relay(h, nil, w)
		}
		if h.expect != "" {
			// The proxy asks for the body itself once the request is
			// decided and the upstream reached; the upstream gets a
			// plain request.
			hc.bw.WriteString("HTTP/1.1 100 Continue\r\n\r\n")
			if hc.bw.Flush() != nil {
				return false
			}
		}
		done := make(chan error, 1)
		up, upBW, br := hc.up, hc.upBW, hc.br
		go func() {
			// An upstream that takes less than 16 KiB of the body in
			// IdleTimeout fails it: the copy would otherwise block in
			// a write, where a client that gave up is never noticed
			// (the watch below starts only once the body is sent).
			upBW.Reset(stallWriter{up, hc.s.cfg.IdleTimeout})
			upBW.WriteString(head)
			fr := bodyFraming{length: h.contentLength, chunked: h.chunked}
			err := copyBody(upBW, br, fr, true, h.chunked, hc.s.cfg.MaxHeaderBytes, nil)
			upBW.Reset(up) // copyBody flushed (or up is closed)
			up.SetWriteDeadline(time.Time{})
			if err != nil {
				// Unblock the response read in relay.
				up.Close()
			}
			done <- err
			if err != nil {
				close(w.exited)
				return
			}
			// The request is sent: from here on the client is only
			// watched for leaving (relay stops the watch).
			hc.watchClient(up, w)
		}()
		return hc.relay(h, done, w)
	}
}

// replayable reports whether a request may be sent twice: an idempotent
// method (RFC 9110 9.2.2), or an Idempotency-Key, as net/http's
// Transport decided.
func replayable(h *requestHead) bool {
	switch h.method {
	case "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE":
		return true
	}
	for _, f := range h.fields {
		if isField(f.name, "Idempotency-Key", "X-Idempotency-Key") {
			return true
		}
	}
	return false
}

// requestHeadFor is the request head sent upstream: origin form, the
// decided host, the client's end-to-end fields, and the proxy's own
// framing. Hop-by-hop fields (Connection and what it names, Keep-Alive,
// Proxy-*, TE, Trailer, Transfer-Encoding, Upgrade) and the client's
// Forwarded/X-Forwarded-* claims are dropped, as httputil.ReverseProxy
// with a Rewrite hook did.
func requestHeadFor(h *requestHead, hostHeader string) string {
	var b strings.Builder
	b.WriteString(h.method)
	b.WriteByte(' ')
	// What net/http's transport sent: the path as the client escaped
	// it when that is a valid escaping of the decided path, re-escaped
	// otherwise, and the query as sent.
	b.WriteString(h.url.RequestURI())
	b.WriteString(" HTTP/1.1\r\nHost: ")
	b.WriteString(hostHeader)
	b.WriteString("\r\n")
	writeFields(&b, h.fields, func(name string) bool {
		return hopByHop(name, h.connTokens) || isField(name, "Host", "Content-Length", "Expect", "Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto")
	})
	switch {
	case h.chunked:
		b.WriteString("Transfer-Encoding: chunked\r\n")
	case h.contentLength >= 0:
		b.WriteString("Content-Length: ")
		b.WriteString(strconv.FormatInt(h.contentLength, 10))
		b.WriteString("\r\n")
	}
	b.WriteString("\r\n")
	return b.String()
}

// writeFields writes "name: value" lines for the fields drop keeps.
func writeFields(w io.StringWriter, fields []field, drop func(name string) bool) {
	for _, f := range fields {
		if drop(f.name) {
			continue
		}
		w.WriteString(f.name)
		w.WriteString(": ")
		w.WriteString(f.value)
		w.WriteString("\r\n")
	}
}

// hopByHop reports whether a field is for one connection only.
func hopByHop(name string, connTokens []string) bool {
	if isField(name, "Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade") {
		return true
	}
	for _, t := range connTokens {
		if strings.EqualFold(name, t) {
			return true
		}
	}
	return false
}

func isField(name string, names ...string) bool {
	for _, n := range names {
		if strings.EqualFold(name, n) {
			return true
		}
	}
	return false
}

// clientWatch is a read on the client connection while its request is
// answered (see watchClient).
type clientWatch struct {
	mu       sync.Mutex
	stopping bool // the response is read in full, or relay is done
	left     bool // the client closed (or broke) its connection first
	exited   chan struct{}
}

// responseRead ends the watch's say over the upstream connection: the
// upstream answered in full, so there is no read of it left to end.
func (w *clientWatch) responseRead() {
	w.mu.Lock()
	w.stopping = true
	w.mu.Unlock()
}

// stallWriter writes to c in pieces of at most stallPiece bytes, each
// with a deadline d from its start: a slow reader is fine, one that
// takes less than a piece in d fails the write.
type stallWriter struct {
	c net.Conn
	d time.Duration
}

const stallPiece = 16 << 10

func (w stallWriter) Write(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		end := min(len(p), n+stallPiece)
		w.c.SetWriteDeadline(time.Now().Add(w.d))
		m, err := w.c.Write(p[n:end])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// longAgo is a deadline that has passed: it ends a blocked read at once.
var longAgo = time.Unix(1, 0)

// watchClient waits, once a request is fully sent upstream, for the
// client connection to end, and then closes the upstream connection up:
// an upstream that never answers (an allowed server may be made to)
// would otherwise hold this goroutine, the client's MaxConns slot and
// the upstream connection after the client has given up, and enough
// given-up requests would wedge the proxy for every new connection.
// net/http's server cancelled the request the same way. The read is a
// Peek, so a pipelined next request stays in the buffer. It closes
// w.exited when it returns; stopWatch ends it.
//
// The decision to close and the end of the watch are taken under w.mu,
// and relay ends the watch (responseRead) before the last bytes of the
// response go to the client: a client that closes right after reading
// its response is never taken for one that gave up.
func (hc *httpConn) watchClient(up net.Conn, w *clientWatch) {
	defer close(w.exited)
	if _, err := hc.br.Peek(1); err != nil {
		w.mu.Lock()
		if !w.stopping {
			w.left = true
			up.Close()
		}
		w.mu.Unlock()
	}
}

// stopWatch ends the watch and reports whether the client left (and the
// upstream connection was closed for it). The client connection has no
// read deadline afterwards.
func (hc *httpConn) stopWatch(w *clientWatch) bool {
	w.responseRead()
	hc.c.SetReadDeadline(longAgo)
	<-w.exited
	hc.c.SetReadDeadline(time.Time{})
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.left
}

// relay reads the upstream response and sends it to the client. body,
// when not nil, delivers the request body copy's result; w is the watch
// on the client (stopped before relay returns).
func (hc *httpConn) relay(h *requestHead, body chan error, w *clientWatch) (keep bool) {
	defer func() {
		if hc.stopWatch(w) {
			keep, hc.upIdle = false, false
			hc.dropUpstream()
		}
	}()
	limit := hc.s.cfg.MaxHeaderBytes * 4
	var r *responseHead
	var err error
	for interim := 0; ; interim++ {
		r, err = readResponseHead(hc.upBR, limit)
		if err != nil || r.status >= 200 {
			break
		}
		if interim == maxInterim {
			err = &errBadResponse{"more than " + strconv.Itoa(maxInterim) + " interim (1xx) responses"}
			break
		}
		if r.status == 101 {
			err = &errBadResponse{"101 Switching Protocols to a request that did not ask"}
			break
		}
		// Other 1xx (100 Continue, 103 Early Hints) are interim: the
		// proxy answered Expect itself.
	}
	if err != nil {
		if body != nil {
			// A client whose body broke has closed the upstream, which
			// is why the read failed; its result follows at once.
			// Otherwise stop the body copy.
			var berr error
			t := time.NewTimer(bodyGrace)
			select {
			case berr = <-body:
			case <-t.C:
				hc.c.SetReadDeadline(time.Now())
				hc.dropUpstream()
				<-body
			}
			t.Stop()
			if berr != nil {
				if re, ok := errors.AsType[*readError](berr); ok {
					// The client's body broke (or ended early): its
					// fault, answered as such.
					hc.dropUpstream()
					hc.reply(nil, 400, nil, "jp-policy proxy: request body: "+re.err.Error()+"\n")
					return false
				}
			}
		}
		hc.dropUpstream()
		hc.reply(nil, 502, nil, "jp-policy proxy: cannot reach "+hc.upKeyOr()+": "+err.Error()+"\n")
		return false
	}
	noBody := h.method == "HEAD" || r.status == 204 || r.status == 304
	fr := bodyFraming{length: r.contentLength, chunked: r.chunked}
	delimited := noBody || r.chunked || r.contentLength >= 0
	keep = !h.close && delimited && !hc.s.isShuttingDown()
	if r.chunked && h.minor == 0 {
		keep = false // chunks are HTTP/1.1; the body runs to the close
	}

	// Whether the request body went through decides whether the client
	// connection can carry another request, and that goes in the head.
	// A body still flowing when the answer is in (an upstream that
	// answered early, or one that streams while it reads) gets a moment
	// to finish; after that the connection closes after this response.
	var bodyErr error
	bodyDone := body == nil
	if !bodyDone {
		t := time.NewTimer(bodyGrace)
		select {
		case bodyErr = <-body:
			bodyDone = true
		case <-t.C:
		}
		t.Stop()
		if !bodyDone || bodyErr != nil {
			keep = false
		}
	}

	bw := hc.bw
	bw.WriteString("HTTP/1.1 ")
	bw.WriteString(strconv.Itoa(r.status))
	bw.WriteByte(' ')
	bw.WriteString(r.reason)
	bw.WriteString("\r\n")
	writeFields(bw, r.fields, func(name string) bool {
		return hopByHop(name, r.connTokens) || strings.EqualFold(name, "Content-Length") && !noBody
	})
	switch {
	case noBody:
	case r.chunked && h.minor == 1:
		bw.WriteString("Transfer-Encoding: chunked\r\n")
	case r.contentLength >= 0:
		bw.WriteString("Content-Length: ")
		bw.WriteString(strconv.FormatInt(r.contentLength, 10))
		bw.WriteString("\r\n")
	}
	if !keep {
		bw.WriteString("Connection: close\r\n")
	}
	bw.WriteString("\r\n")
	// The response is read from the upstream in full before its last
	// bytes reach the client, and the watch ends there: a client that
	// closes as soon as it has its answer has not given up, and the
	// upstream connection stays for the pool.
	if noBody {
		w.responseRead()
		err = bw.Flush()
	} else {
		err = copyBody(bw, hc.upBR, fr, false, h.minor == 1, limit, w.responseRead)
	}
	if err != nil {
		keep = false
	}
	upOK := err == nil && delimited && !r.close && hc.upBR.Buffered() == 0 && bodyDone && bodyErr == nil
	if !bodyDone {
		select {
		case <-body:
		default:
			// The rest of the body cannot be framed for anyone any
			// more: stop reading it.
			hc.c.SetReadDeadline(time.Now())
			hc.dropUpstream()
			<-body
		}
		keep, upOK = false, false
	}
	if !upOK {
		hc.dropUpstream()
	}
	hc.upIdle = upOK
	return keep
}

func (hc *httpConn) upKeyOr() string { return hc.upKey }

// parkUpstream gives an upstream connection that finished cleanly to
// the idle pool and closes any other.
func (hc *httpConn) parkUpstream() {
	if hc.up != nil && hc.upIdle {
		hc.s.putIdle(hc.upKey, idleConn{c: hc.up, br: hc.upBR, bw: hc.upBW})
		hc.up, hc.upBR, hc.upBW, hc.upIdle = nil, nil, nil, false
		return
	}
	hc.dropUpstream()
}

// dropUpstream closes the held upstream connection, if any.
func (hc *httpConn) dropUpstream() {
	if hc.up != nil {
		hc.up.Close()
		hc.s.removeConn(hc.up)
		hc.up, hc.upBR, hc.upBW = nil, nil, nil
	}
}

// reply answers a request with the proxy's own plain-text response and
// reports whether the connection can carry another request: only when
// the request (h, nil when its head was not understood) had no body to
// skip and the client keeps the connection.
func (hc *httpConn) reply(h *requestHead, code int, extra []field, body string) bool {
	keep := h != nil && !h.close && !h.hasBody() && !hc.s.isShuttingDown()
	bw := hc.bw
	bw.WriteString("HTTP/1.1 ")
	bw.WriteString(strconv.Itoa(code))
	bw.WriteByte(' ')
	bw.WriteString(statusText(code))
	bw.WriteString("\r\nContent-Type: text/plain; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n")
	writeFields(bw, extra, func(string) bool { return false })
	bw.WriteString("Content-Length: ")
	bw.WriteString(strconv.Itoa(len(body)))
	bw.WriteString("\r\n")
	if !keep {
		bw.WriteString("Connection: close\r\n")
	}
	bw.WriteString("\r\n")
	if h == nil || h.method != "HEAD" {
		bw.WriteString(body)
	}
	return bw.Flush() == nil && keep
}

func statusText(code int) string {
	switch code {
	case 400:
		return "Bad Request"
	case 403:
		return "Forbidden"
	case 417:
		return "Expectation Failed"
	case 431:
		return "Request Header Fields Too Large"
	case 501:
		return "Not Implemented"
	case 502:
		return "Bad Gateway"
	case 505:
		return "HTTP Version Not Supported"
	}
	return "Error"
}

// connect decides and opens a tunnel. CONNECT is how clients reach
// https:// (and wss://, and other TLS) through HTTPS_PROXY, so it is
// decided as scheme https with the path hidden.
func (hc *httpConn) connect(h *requestHead) {
	h.close = true
	u := h.url
	if u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
		// "CONNECT /x" takes its target from the Host header and
		// "CONNECT host:443/x" carries a path no tunnel has: neither is
		// the authority form (RFC 9110 9.3.6) clients send.
		hc.reply(h, 400, nil, "jp-policy proxy: CONNECT needs the authority form host:port, got "+strconv.Quote(h.target)+"\n")
		return
	}
	host, ps, err := net.SplitHostPort(u.Host)
	if err != nil {
		hc.reply(h, 400, nil, "jp-policy proxy: CONNECT needs host:port, got "+strconv.Quote(u.Host)+"\n")
		return
	}
	n, err := strconv.ParseUint(ps, 10, 16)
	if err != nil {
		hc.reply(h, 400, nil, "jp-policy proxy: port "+strconv.Quote(ps)+" is not a TCP port\n")
		return
	}
	port := int(n)
	s := hc.s
	d, canon := s.decide("https", host, port, "")
	entry := LogEntry{Client: hc.c.RemoteAddr().String(), Kind: "connect", Method: h.method, Scheme: "https", Host: host, Canonical: canon, Port: port}
	s.logDecision(entry, d)
	if !d.Allowed {
		hc.reply(h, 403, denied, "jp-policy proxy: "+d.Human())
		return
	}
	// The decided port, not the client's spelling of it ("0443").
	up, err := s.dialDecided(s.ctx, canon, port)
	if err != nil {
		if ae, ok := addrRefusal(err); ok {
			s.logAddrRefusal(entry, ae)
			hc.reply(h, 403, denied, "jp-policy proxy: "+ae.Error()+"\n  hint: "+ae.Hint()+"\n")
			return
		}
		hc.reply(h, 502, nil, "jp-policy proxy: cannot reach "+net.JoinHostPort(canon, strconv.Itoa(port))+": "+err.Error()+"\n")
		return
	}
	hc.c.SetDeadline(time.Time{})
	if _, err := io.WriteString(hc.c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		up.Close()
		return
	}
	s.tunnel(hc.c, hc.br, up)
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

// tunnel copies both ways between client c (after the bytes already
// buffered in br) and upstream up until both directions end, then closes
// both. c is the caller's (tracked by Serve); up is tracked here so
// Close ends it.
func (s *Server) tunnel(c net.Conn, br *bufio.Reader, up net.Conn) {
	if !s.addConn(up) {
		up.Close()
		return
	}
	defer s.removeConn(up)
	defer c.Close()
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
		if _, err := copyConn(up, c); err != nil {
			// A reset on one side ends the other too.
			c.Close()
		}
		closeWrite(up)
	}()
	if _, err := copyConn(c, up); err != nil {
		up.Close()
	}
	closeWrite(c)
	<-done
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

// Servers disagree on what a dot segment is, so the check is done as the
// most permissive of them would read the path: a backslash separates
// segments (IIS and several frameworks), ";params" are cut from a segment
// (Tomcat and Jetty read "..;" as ".."), and the path is percent-decoded
// again, up to three times (servers that decode twice see %252e%252e as
// ".."). Any reading that yields "." or ".." refuses the request.
func hasDotSegment(p string) bool {
	for r := range pathReadings(p) {
		for _, seg := range strings.FieldsFunc(r, func(c rune) bool { return c == '/' || c == '\\' }) {
			if i := strings.IndexByte(seg, ';'); i >= 0 {
				seg = seg[:i]
			}
			if seg == "." || seg == ".." {
				return true
			}
		}
	}
	return false
}

// otherReadings yields the readings of a decoded request path p that
// servers may serve besides p itself: each of pathReadings, and each of
// those with ";params" cut from every segment and with backslashes read
// as slashes, once each.
func otherReadings(p string) iter.Seq[string] {
	return func(yield func(string) bool) {
		seen := []string{p}
		try := func(r string) bool {
			if slices.Contains(seen, r) {
				return true
			}
			seen = append(seen, r)
			return yield(r)
		}
		for r := range pathReadings(p) {
			for _, v := range []string{r, cutParams(r), strings.ReplaceAll(r, "\\", "/"), cutParams(strings.ReplaceAll(r, "\\", "/"))} {
				if !try(v) {
					return
				}
			}
		}
	}
}

// allReadings is p and otherReadings(p).
func allReadings(p string) iter.Seq[string] {
	return func(yield func(string) bool) {
		if !yield(p) {
			return
		}
		for r := range otherReadings(p) {
			if !yield(r) {
				return
			}
		}
	}
}

// cutParams removes ";params" from every segment of p, as Servlet
// containers read a path ("/a;x/b;y" is "/a/b").
func cutParams(p string) string {
	if !strings.Contains(p, ";") {
		return p
	}
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		segs[i], _, _ = strings.Cut(seg, ";")
	}
	return strings.Join(segs, "/")
}

// networkPath reports whether a request path (as sent, escaped) begins
// with two separators in any reading hasDotSegment considers, "/" or
// a backslash (WHATWG URL parsers take it for a slash).
func networkPath(p string) bool {
	sep := func(c byte) bool { return c == '/' || c == '\\' }
	for r := range pathReadings(p) {
		if len(r) >= 2 && sep(r[0]) && sep(r[1]) {
			return true
		}
	}
	return false
}

// pathReadings yields a request path as sent, then percent-decoded again
// and again, up to three times, stopping at the first decoding that fails
// or changes nothing: the readings of servers that decode once, twice or
// three times.
func pathReadings(p string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for range 4 {
			if !yield(p) {
				return
			}
			d, err := url.PathUnescape(p)
			if err != nil || d == p {
				return
			}
			p = d
		}
	}
}

func bracket(h string) string {
	if strings.IndexByte(h, ':') >= 0 {
		return "[" + h + "]"
	}
	return h
}
