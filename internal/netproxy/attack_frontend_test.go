package netproxy

// Attacks on the proxy's own HTTP/1.1 front end (head.go, body.go,
// http.go, upstream.go): a tool that controls every byte it sends, and
// sometimes the allowed upstream's answers too.

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// resolvingOrigin answers every request with the path its target means
// to a server that resolves the request target as a URI reference
// against its own base, as Node's `new URL(req.url, base)` and many
// routers do: "//x/secret" there is the authority "x" and the path
// "/secret".
func resolvingOrigin(t *testing.T) int {
	t.Helper()
	port, _ := rawOrigin(t, func(c net.Conn, br *bufio.Reader) {
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			io.Copy(io.Discard, req.Body)
			body := "?"
			if u, err := url.Parse(strings.ReplaceAll(req.RequestURI, `\`, "/")); err == nil {
				body = "path=" + u.Path
			}
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
		}
	})
	return port
}

// A path that begins with two slashes (or a backslash standing in for
// one) is a network-path reference to a server that resolves the target
// against a base: the policy would match the cleaned "/allowed/x" while
// the server serves "/x".
func TestAttackNetworkPathReference(t *testing.T) {
	checkNoLeak(t)
	port := resolvingOrigin(t)
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	proxy, _ := startProxy(t, []policy.NetRule{
		{Host: "127.0.0.1", Port: u16(port), PathPrefix: new("/allowed"), Allow: true},
	}, nil)
	for _, tc := range []struct {
		path string
		ok   bool // forwarded; the origin then must serve under /allowed
	}{
		{"/allowed/x", true},  // control
		{"/allowed//x", true}, // an empty segment inside the path is harmless
		{"//allowed/x", false},
		{`/\allowed/x`, false},
		{`\\allowed/x`, false},
		// Encoded, for a server that decodes before it resolves (the
		// policy decodes, and cleans "//allowed" to "/allowed").
		{"/%2Fallowed/x", false},
		{"/%5Callowed/x", false},
		{"/%252Fallowed/x", false},
	} {
		t.Run(tc.path, func(t *testing.T) {
			c, err := net.Dial("tcp", proxy)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			resp, body := exchange(t, c, bufio.NewReader(c), "GET "+base+tc.path+" HTTP/1.1\r\nHost: x\r\n\r\n", "GET")
			if resp.StatusCode == 200 && !strings.HasPrefix(body, "path=/allowed") {
				t.Errorf("policy allowed only /allowed, the origin served %q", body)
			}
			if tc.ok != (resp.StatusCode == 200) {
				t.Errorf("%d %q", resp.StatusCode, body)
			}
			if !tc.ok && resp.StatusCode != 400 {
				t.Errorf("%d %q, want 400", resp.StatusCode, body)
			}
		})
	}
}

// A deny rule on a path is the other half of the same attack: "//x/secret"
// cleans to "/x/secret", which the deny rule on "/secret" does not match,
// while a resolving server serves "/secret".
func TestAttackNetworkPathReferenceDeny(t *testing.T) {
	checkNoLeak(t)
	port := resolvingOrigin(t)
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	proxy, _ := startProxy(t, []policy.NetRule{
		{Host: "127.0.0.1", Port: u16(port), Allow: true},
		{Host: "127.0.0.1", Port: u16(port), PathPrefix: new("/secret"), Allow: false},
	}, nil)
	for _, tc := range []struct {
		path string
		code int
	}{
		{"/public", 200}, // control
		{"/secret", 403}, // control
		{"//x/secret", 400},
		{`/\x/secret`, 400},
	} {
		resp, body := proxyGet(t, proxy, base+tc.path)
		if resp.StatusCode != tc.code || strings.Contains(body, "path=/secret") {
			t.Errorf("%s: %d %q, want %d", tc.path, resp.StatusCode, body, tc.code)
		}
	}
}

// unsolicitedOrigin answers each request with "path=<path>" and, a
// moment after its first answer on a connection, writes a response
// nobody asked for: the next request that reuses the connection would
// read it as its own answer. The moment is when the test says the client
// has its first answer (answered); sent is closed once the stray bytes
// are written, and so queued at the proxy's end of the loopback
// connection.
func unsolicitedOrigin(t *testing.T) (port int, answered, sent chan struct{}) {
	t.Helper()
	answered, sent = make(chan struct{}), make(chan struct{})
	var first atomic.Bool
	first.Store(true)
	port, _ = rawOrigin(t, func(c net.Conn, br *bufio.Reader) {
		stray := first.Swap(false) // on the first connection only
		for i := 0; ; i++ {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			io.Copy(io.Discard, req.Body)
			body := "path=" + req.URL.Path
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
			if i == 0 && stray {
				<-answered
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nstale!")
				close(sent)
			}
		}
	})
	return port, answered, sent
}

// dialProxyFor starts a proxy that allows 127.0.0.1:port and returns
// the origin's base URL and a client connection to the proxy (closed at
// cleanup).
func dialProxyFor(t *testing.T, port int) (string, net.Conn, *bufio.Reader) {
	t.Helper()
	proxy, _ := startProxy(t, []policy.NetRule{{Host: "127.0.0.1", Port: u16(port), Allow: true}}, nil)
	c, err := net.Dial("tcp", proxy)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return "http://127.0.0.1:" + strconv.Itoa(port), c, bufio.NewReader(c)
}

// Bytes an upstream sends while its connection is idle (between
// exchanges) belong to no request: a reused connection that has them
// must not hand them to the next request, from the same client
// connection or from another.
func TestAttackUnsolicitedResponseOnIdleUpstream(t *testing.T) {
	checkNoLeak(t)
	t.Run("pooled, next client", func(t *testing.T) {
		port, answered, sent := unsolicitedOrigin(t)
		base := "http://127.0.0.1:" + strconv.Itoa(port)
		proxy, s := startProxy(t, []policy.NetRule{{Host: "127.0.0.1", Port: u16(port), Allow: true}}, nil)
		if resp, body := proxyGet(t, proxy, base+"/a"); resp.StatusCode != 200 || body != "path=/a" {
			t.Fatalf("control: %d %q", resp.StatusCode, body)
		}
		waitFor(t, "the upstream connection in the pool", func() bool {
			s.mu.Lock()
			defer s.mu.Unlock()
			return s.nIdle == 1
		})
		close(answered)
		waitChan(t, "the stray response", sent)
		if resp, body := proxyGet(t, proxy, base+"/b"); resp.StatusCode != 200 || body != "path=/b" {
			t.Errorf("second client got %d %q for /b", resp.StatusCode, body)
		}
	})
	t.Run("held, same client", func(t *testing.T) {
		port, answered, sent := unsolicitedOrigin(t)
		base, c, br := dialProxyFor(t, port)
		if resp, body := exchange(t, c, br, "GET "+base+"/a HTTP/1.1\r\nHost: x\r\n\r\n", "GET"); resp.StatusCode != 200 || body != "path=/a" {
			t.Fatalf("control: %d %q", resp.StatusCode, body)
		}
		close(answered)
		waitChan(t, "the stray response", sent)
		if resp, body := exchange(t, c, br, "GET "+base+"/b HTTP/1.1\r\nHost: x\r\n\r\n", "GET"); resp.StatusCode != 200 || body != "path=/b" {
			t.Errorf("second request got %d %q for /b", resp.StatusCode, body)
		}
	})
}

// A client that gives up on a request (closes its connection) while the
// upstream has not answered must not leave the proxy holding the client
// slot, the upstream connection and a goroutine until the upstream
// answers, which an allowed upstream may never do: MaxConns abandoned
// requests would otherwise wedge the proxy for every new connection.
func TestAttackAbandonedRequestToSilentUpstream(t *testing.T) {
	checkNoLeak(t)
	release := make(chan struct{})
	asked := make(chan struct{}, 16)
	port, _ := rawOrigin(t, func(c net.Conn, br *bufio.Reader) {
		if _, err := http.ReadRequest(br); err != nil {
			return
		}
		asked <- struct{}{}
		c.SetDeadline(time.Time{})
		<-release // never answers while the test runs
	})
	defer close(release)
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	const maxConns = 4
	proxy, s := startWith(t, []policy.NetRule{{Host: "127.0.0.1", Port: u16(port), Allow: true}}, Config{MaxConns: maxConns})
	for i := range maxConns * 2 {
		c, err := net.Dial("tcp", proxy)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, "GET "+base+"/hang"+strconv.Itoa(i)+" HTTP/1.1\r\nHost: x\r\n\r\n")
		// Given up once the request waits on the upstream.
		waitChan(t, "the request to reach the origin", asked)
		c.Close()
	}
	slotsFreed(t, proxy, s)
}

// slotsFreed fails t unless the proxy comes to hold no client slot
// (every client has closed) and answers a new client (the control: a
// 403 needs no upstream).
func slotsFreed(t *testing.T, proxy string, s *Server) {
	t.Helper()
	waitFor(t, "every client slot to be given back", func() bool { return len(s.slots) == 0 })
	resp, body := proxyGet(t, proxy, "http://127.0.0.1:1/x")
	if resp.StatusCode != 403 {
		t.Errorf("new client after abandoned requests: %d %q", resp.StatusCode, body)
	}
}

// Spellings of loopback and of other addresses in the request target, the
// CONNECT authority and the Host header, against a policy that grants one
// public name and one link-local IPv6 literal: nothing but the granted
// addresses may be dialled, whatever the spelling. The public name and
// the literal, spelled in other ways, are the positive controls.
func TestAttackAddressSpellings(t *testing.T) {
	checkNoLeak(t)
	_, port := origin(t)
	ps := strconv.Itoa(port)
	res := &fakeResolver{}
	res.set("api.test", "203.0.113.7")
	res.set("xn--mnchen-3ya.test", "203.0.113.7")
	d := &publicDialer{public: "127.0.0.1:" + ps}
	proxy, _ := startWith(t, []policy.NetRule{
		{Host: "api.test", Port: u16(port), Allow: true},
		{Host: "münchen.test", Port: u16(port), Allow: true},
		{Host: "fe80::1", Port: u16(port), Allow: true},
	}, Config{Dial: d, Resolver: res, DialTimeout: 300 * time.Millisecond})
	for _, tc := range []struct {
		host string // as it goes in the URL's authority, before ":port"
		ok   bool   // reaches the origin
	}{
		{"api.test", true},
		{"API.TEST.", true},
		{"xn--mnchen-3ya.test", true},
		{"m%C3%BCnchen.test", true}, // percent-encoded UTF-8 in the authority
		{"127.0.0.1", false},
		{"127.1", false},
		{"0x7f.1", false},
		{"2130706433", false},
		{"0177.0.0.1", false},
		{"127.0.0.1.", false},
		{"%31%32%37.0.0.1", false},
		{"%EF%BC%91%EF%BC%92%EF%BC%97.0.0.1", false}, // fullwidth digits: 127.0.0.1 after IDNA mapping
		{"[::1]", false},
		{"[::ffff:127.0.0.1]", false},
		{"[::ffff:7f00:1]", false},
		{"[0:0:0:0:0:0:0:1]", false},
		{"[fe80::1%25lo]", false}, // a zone the rule does not name
		{"[fe80::1%25eth0]", false},
		{"api.test%00", false},
		{"api.test\\@127.0.0.1", false},
		{"127.0.0.1#@api.test", false},
		{"api.test.127.0.0.1.nip.io", false}, // a name: resolved (not in the table), never dialled
	} {
		t.Run(tc.host, func(t *testing.T) {
			resp, body := proxyGet(t, proxy, "http://"+tc.host+":"+ps+"/x")
			if tc.ok != (resp.StatusCode == 200) {
				t.Errorf("HTTP: %d %q", resp.StatusCode, body)
			}
			c, err := net.Dial("tcp", proxy)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(5 * time.Second))
			io.WriteString(c, "CONNECT "+tc.host+":"+ps+" HTTP/1.1\r\nHost: api.test:"+ps+"\r\n\r\n")
			cr, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: "CONNECT"})
			if err != nil {
				t.Fatal(err)
			}
			if tc.ok != (cr.StatusCode == 200) {
				t.Errorf("CONNECT: %s", cr.Status)
			}
		})
	}
	// Host names the granted name, the target another address.
	c, err := net.Dial("tcp", proxy)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if resp, body := exchange(t, c, bufio.NewReader(c), "GET http://127.0.0.1:"+ps+"/x HTTP/1.1\r\nHost: api.test:"+ps+"\r\n\r\n", "GET"); resp.StatusCode != 403 {
		t.Errorf("target 127.0.0.1, Host api.test: %d %q", resp.StatusCode, body)
	}
	for _, a := range d.dialled() {
		if a != "203.0.113.7:"+ps && a != "[fe80::1]:"+ps {
			t.Errorf("dialled %s", a)
		}
	}
}

// The same wedge as TestAttackAbandonedRequestToSilentUpstream while the
// request body is still being sent: the upstream reads nothing, so the
// proxy's copy of the body blocks writing to it, and the client gives up.
// No read of the client can see it leave there (its unread body is ahead
// of the close), so an upstream that takes less than 16 KiB of a body in
// IdleTimeout fails the request.
func TestAttackAbandonedBodyToSilentUpstream(t *testing.T) {
	checkNoLeak(t)
	release := make(chan struct{})
	port, _ := rawOrigin(t, func(c net.Conn, br *bufio.Reader) {
		c.SetDeadline(time.Time{})
		<-release // reads nothing, answers nothing
	})
	defer close(release)
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	const maxConns = 2
	proxy, s := startWith(t, []policy.NetRule{{Host: "127.0.0.1", Port: u16(port), Allow: true}}, Config{MaxConns: maxConns, IdleTimeout: 500 * time.Millisecond})
	const size = 64 << 20
	for range maxConns {
		c, err := net.Dial("tcp", proxy)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, "POST "+base+"/up HTTP/1.1\r\nHost: x\r\nContent-Length: "+strconv.Itoa(size)+"\r\n\r\n")
		// Write until the buffers between us and the silent upstream
		// are full, then give up.
		c.SetWriteDeadline(time.Now().Add(300 * time.Millisecond))
		chunk := make([]byte, 64<<10)
		for {
			if _, err := c.Write(chunk); err != nil {
				break
			}
		}
		c.Close()
	}
	slotsFreed(t, proxy, s)
}

// The positive control for the stall limit: an upstream that reads a body
// in pieces gets all of it, because the limit is per 16 KiB written (each
// write armed anew with IdleTimeout), not for the whole body; a slow
// reader may take longer in total. The upstream connection records the
// write deadlines the proxy sets, so no clock is raced: IdleTimeout is
// far longer than any piece can take.
func TestHTTPSlowBodyReader(t *testing.T) {
	checkNoLeak(t)
	const size = 256 << 10
	port, _ := rawOrigin(t, func(c net.Conn, br *bufio.Reader) {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		n := 0
		buf := make([]byte, 8<<10)
		for {
			m, err := req.Body.Read(buf)
			n += m
			if err != nil {
				break
			}
		}
		body := strconv.Itoa(n)
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
	})
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	const idle = waitBound
	d := &deadlineDialer{}
	proxy, _ := startWith(t, []policy.NetRule{{Host: "127.0.0.1", Port: u16(port), Allow: true}}, Config{IdleTimeout: idle, Dial: d})
	c, err := net.Dial("tcp", proxy)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go io.WriteString(c, "POST "+base+"/up HTTP/1.1\r\nHost: x\r\nContent-Length: "+strconv.Itoa(size)+"\r\n\r\n"+strings.Repeat("b", size))
	resp, body := exchange(t, c, bufio.NewReader(c), "", "POST")
	if resp.StatusCode != 200 || body != strconv.Itoa(size) {
		t.Errorf("slow reader: %d %q", resp.StatusCode, body)
	}
	armed := d.armed()
	if len(armed) < size/stallPiece {
		t.Errorf("%d write deadlines for a %d-byte body, want one per %d bytes at least", len(armed), size, stallPiece)
	}
	for _, a := range armed {
		if a > idle {
			t.Errorf("a write deadline %v ahead, want at most IdleTimeout %v", a, idle)
		}
	}
}

// deadlineDialer dials as net.Dialer does and records, for each write
// deadline set on a connection it made, how far ahead it was set.
type deadlineDialer struct {
	mu    sync.Mutex
	ahead []time.Duration
}

func (d *deadlineDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	var nd net.Dialer
	c, err := nd.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &deadlineConn{Conn: c, d: d}, nil
}

func (d *deadlineDialer) armed() []time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.ahead)
}

type deadlineConn struct {
	net.Conn
	d *deadlineDialer
}

func (c *deadlineConn) SetWriteDeadline(t time.Time) error {
	if !t.IsZero() {
		ahead := time.Until(t)
		c.d.mu.Lock()
		c.d.ahead = append(c.d.ahead, ahead)
		c.d.mu.Unlock()
	}
	return c.Conn.SetWriteDeadline(t)
}

func (c *deadlineConn) CloseWrite() error { return c.Conn.(*net.TCPConn).CloseWrite() }

// Odd request targets in absolute form: schemes, empty and doubled
// ports, empty hosts, opaque forms, a bracketed IPv4 literal. Each is
// refused or decided on exactly the endpoint it names; the upstream only
// ever sees an origin-form path under the grant.
func TestAttackOddAbsoluteForms(t *testing.T) {
	checkNoLeak(t)
	port, seen, _ := recordingOrigin(t)
	ps := strconv.Itoa(port)
	proxy, _ := startProxy(t, []policy.NetRule{{Host: "127.0.0.1", Port: u16(port), PathPrefix: new("/api"), Allow: true}}, nil)
	for _, tc := range []struct {
		target string
		code   int
	}{
		{"http://127.0.0.1:" + ps + "/api/x", 200}, // control
		{"HTTP://127.0.0.1:" + ps + "/api/x", 200}, // the scheme is case-insensitive
		{"http://127.0.0.1:0" + ps + "/api/x", 200},
		{"ws://127.0.0.1:" + ps + "/api/x", 400},
		{"https://127.0.0.1:" + ps + "/api/x", 400},
		{"http+unix://127.0.0.1:" + ps + "/api/x", 400},
		{"http:127.0.0.1:" + ps + "/api/x", 400}, // opaque
		{"http:/api/x", 400},
		{"http:///api/x", 400},
		{"http://:" + ps + "/api/x", 403}, // the policy refuses the empty host
		{"http://127.0.0.1:" + ps + ":" + ps + "/api/x", 400},
		{"http://127.0.0.1:" + ps + "?/api/x", 403}, // the path is "/", the query is not the path
		{"http://127.0.0.1:" + ps + "/api%00/x", 403},
		{"http://[127.0.0.1]:" + ps + "/api/x", 400},
		{"http://127.0.0.1:" + ps + "/API/x", 403},
		{"*", 400},
		{"/api/x", 400},
	} {
		c, err := net.Dial("tcp", proxy)
		if err != nil {
			t.Fatal(err)
		}
		resp, body := exchange(t, c, bufio.NewReader(c), "GET "+tc.target+" HTTP/1.1\r\nHost: 127.0.0.1:"+ps+"\r\n\r\n", "GET")
		c.Close()
		if resp.StatusCode != tc.code {
			t.Errorf("%s: %d %q, want %d", tc.target, resp.StatusCode, body, tc.code)
		}
	}
	for _, s := range seen() {
		if !strings.HasPrefix(s, "GET /api/x ") {
			t.Errorf("origin saw %q", s)
		}
	}
}

// The retry of a request on a reused upstream connection that closes
// before answering may repeat it: only requests that are safe to repeat
// (idempotent methods, or an Idempotency-Key), as net/http's Transport
// decided, are sent again. A POST the upstream read and then dropped
// must reach it once.
func TestAttackRetryRepeatsRequest(t *testing.T) {
	checkNoLeak(t)
	for _, tc := range []struct {
		method, extra string
		retried       bool
	}{
		{"GET", "", true}, // control: safe to repeat
		{"DELETE", "", true},
		{"POST", "", false},
		{"PATCH", "", false},
		{"POST", "Idempotency-Key: k1\r\n", true},
	} {
		t.Run(tc.method+tc.extra, func(t *testing.T) {
			var mu sync.Mutex
			var seen []string
			port, _ := rawOrigin(t, func(c net.Conn, br *bufio.Reader) {
				for i := 0; ; i++ {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					mu.Lock()
					seen = append(seen, req.Method+" "+req.URL.Path)
					mu.Unlock()
					if req.URL.Path == "/second" && i == 1 {
						return // read it, then drop the connection unanswered
					}
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
				}
			})
			base, c, br := dialProxyFor(t, port)
			if resp, body := exchange(t, c, br, "GET "+base+"/first HTTP/1.1\r\nHost: x\r\n\r\n", "GET"); resp.StatusCode != 200 {
				t.Fatalf("first: %d %q", resp.StatusCode, body)
			}
			resp, body := exchange(t, c, br, tc.method+" "+base+"/second HTTP/1.1\r\nHost: x\r\n"+tc.extra+"\r\n", tc.method)
			mu.Lock()
			n := 0
			for _, s := range seen {
				if strings.HasSuffix(s, "/second") {
					n++
				}
			}
			mu.Unlock()
			if tc.retried && (resp.StatusCode != 200 || n != 2) {
				t.Errorf("retried: %d %q, upstream read it %d times", resp.StatusCode, body, n)
			}
			if !tc.retried && (resp.StatusCode != 502 || n != 1) {
				t.Errorf("not to be repeated: %d %q, upstream read it %d times", resp.StatusCode, body, n)
			}
		})
	}
}
