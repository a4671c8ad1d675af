package netproxy

// Attacks by a tool that is allowed one endpoint and wants another. Each
// test pairs the attack with a positive control (the allowed request
// still works) so that a proxy refusing everything cannot pass.

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// publicDialer dials for real, except that the public test address
// 203.0.113.7 is redirected to a loopback listener (standing in for a
// public server); it records every address it is asked for. A loopback
// address that reaches it is dialled for real, so a proxy that let one
// through would reach the loopback origin: the attack would succeed.
type publicDialer struct {
	mu     sync.Mutex
	public string // "127.0.0.1:PORT" that 203.0.113.7 stands for
	asked  []string
}

func (d *publicDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.asked = append(d.asked, addr)
	d.mu.Unlock()
	if h, p, _ := net.SplitHostPort(addr); h == "203.0.113.7" {
		_, pp, _ := net.SplitHostPort(d.public)
		if p == pp {
			addr = d.public
		}
	}
	var nd net.Dialer
	return nd.DialContext(ctx, network, addr)
}

// onlyDialled fails t if anything but addr was dialled.
func (d *publicDialer) onlyDialled(t *testing.T, addr string) {
	t.Helper()
	for _, a := range d.dialled() {
		if a != addr {
			t.Errorf("dialled %s", a)
		}
	}
}

func (d *publicDialer) dialled() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.asked...)
}

// An allowed name that resolves to loopback, link-local (the cloud
// metadata endpoint), private or otherwise non-public addresses must not
// take the proxy, which runs in the host's network namespace, there. The
// loopback origin is the host service the tool wants; "api.test" is the
// allowed public name (control), "evil.test" and friends are allowed
// names whose DNS the attacker controls.
func TestAttackDNSToNonPublic(t *testing.T) {
	checkNoLeak(t)
	_, port := origin(t)
	ps := strconv.Itoa(port)
	res := &fakeResolver{}
	res.set("api.test", "203.0.113.7")
	res.set("evil.test", "127.0.0.1")
	res.set("evil6.test", "::1")
	res.set("mapped.test", "::ffff:127.0.0.1")
	res.set("nat64.test", "64:ff9b::7f00:1")
	res.set("meta.test", "169.254.169.254")
	res.set("lan.test", "192.168.1.1")
	res.set("cgnat.test", "100.64.0.1")
	res.set("zero.test", "0.0.0.0")
	res.set("mixed.test", "127.0.0.1", "203.0.113.7")
	res.set("svc.internal", "10.0.0.9")
	res.set("meta.internal", "169.254.169.254")
	res.set("localhost", "203.0.113.66") // never asked: localhost is loopback
	var rules []policy.NetRule
	for _, h := range []string{"api.test", "evil.test", "evil6.test", "mapped.test", "nat64.test", "meta.test", "lan.test", "cgnat.test", "zero.test", "mixed.test", "svc.internal", "meta.internal", "localhost"} {
		rules = append(rules, policy.NetRule{Host: h, Port: u16(port), Allow: true})
	}
	d := &publicDialer{public: "127.0.0.1:" + ps}
	log := &syncBuf{}
	proxy, _ := startWith(t, rules, Config{Dial: d, Resolver: res, Log: log, DialTimeout: 300 * time.Millisecond})

	for _, tc := range []struct {
		host string
		ok   bool // reaches the origin
	}{
		{"api.test", true},   // control: public address
		{"mixed.test", true}, // only the public address is dialled
		{"localhost", true},  // the rule names loopback itself
		{"evil.test", false},
		{"evil6.test", false},
		{"mapped.test", false},
		{"nat64.test", false},
		{"meta.test", false},
		{"lan.test", false},
		{"cgnat.test", false},
		{"zero.test", false},
		{"meta.internal", false},
	} {
		t.Run(tc.host, func(t *testing.T) {
			resp, body := proxyGet(t, proxy, "http://"+tc.host+":"+ps+"/x")
			if tc.ok != (resp.StatusCode == 200) {
				t.Errorf("HTTP: %d %q", resp.StatusCode, body)
			}
			if !tc.ok && (resp.StatusCode != 403 || !strings.Contains(body, "which a rule on a host name does not grant")) {
				t.Errorf("HTTP refusal: %d %q", resp.StatusCode, body)
			}
			resp, conn, _ := connectTunnel(t, proxy, tc.host+":"+ps)
			conn.Close()
			if tc.ok != (resp.StatusCode == 200) || !tc.ok && resp.StatusCode != 403 {
				t.Errorf("CONNECT: %s", resp.Status)
			}
			code, sc := socksDial(t, proxy, socksCmdConnect, socksAtypDomain, []byte(tc.host), port)
			if sc != nil {
				sc.Close()
			}
			if want := map[bool]byte{true: 0, false: socksNotAllowed}[tc.ok]; code != want {
				t.Errorf("SOCKS: reply %#x, want %#x", code, want)
			}
		})
	}
	// A private-use name may reach a private address (dialled, nothing
	// listens there in the test, so 502 rather than 403).
	if resp, body := proxyGet(t, proxy, "http://svc.internal:"+ps+"/x"); resp.StatusCode == 403 {
		t.Errorf("svc.internal -> 10.0.0.9 refused: %q", body)
	}
	for _, a := range d.dialled() {
		ap := netip.MustParseAddrPort(a)
		if c := policy.AddrClass(ap.Addr()); c != "public" && !(c == "loopback" && ap.Port() == uint16(port)) && ap.Addr().String() != "10.0.0.9" {
			t.Errorf("dialled %s (%s)", a, c)
		}
	}
	if strings.Contains(res.names(), "localhost") {
		t.Errorf("localhost was looked up: %s", res.names())
	}
	if !strings.Contains(log.String(), `"addr":"169.254.169.254"`) {
		t.Errorf("decision log lacks the refused address:\n%s", log)
	}
}

// rebindResolver answers a public address the first time and loopback
// after: the classic DNS rebinding race between a check and a connect.
type rebindResolver struct {
	mu sync.Mutex
	n  int
}

func (r *rebindResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
	if r.n == 1 {
		return []netip.Addr{netip.MustParseAddr("203.0.113.7")}, nil
	}
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

// The proxy resolves once per connection and dials the address it
// checked: the first connection goes to the public address, the second
// (rebound) is refused, and loopback is never dialled.
func TestAttackDNSRebinding(t *testing.T) {
	checkNoLeak(t)
	echo := echoServer(t, "tcp", "127.0.0.1:0")
	port := portOf(t, echo.Addr())
	res := &rebindResolver{}
	d := &publicDialer{public: echo.Addr().String()}
	proxy, _ := startWith(t, []policy.NetRule{{Host: "rebind.test", Port: u16(port), Allow: true}}, Config{Dial: d, Resolver: res})
	code, c := socksDial(t, proxy, socksCmdConnect, socksAtypDomain, []byte("rebind.test"), port)
	if code != 0 {
		t.Fatalf("first connection: %#x", code)
	}
	echoRoundTrip(t, c)
	c.Close()
	if code, _ := socksDial(t, proxy, socksCmdConnect, socksAtypDomain, []byte("rebind.test"), port); code != socksNotAllowed {
		t.Errorf("rebound connection: %#x", code)
	}
	res.mu.Lock()
	n := res.n
	res.mu.Unlock()
	if got := strings.Join(d.dialled(), " "); got != "203.0.113.7:"+strconv.Itoa(port) || n != 2 {
		t.Errorf("dialled %q after %d lookups; want the checked public address once, one lookup per connection", got, n)
	}
}

// rawExchange writes req on a fresh connection and returns every
// response the proxy sends before closing (or going quiet).
func rawExchange(t *testing.T, proxy, req string, n int) []*http.Response {
	t.Helper()
	c, err := net.Dial("tcp", proxy)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(waitBound))
	io.WriteString(c, req)
	br := bufio.NewReader(c)
	var out []*http.Response
	for range n {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			break
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body = io.NopCloser(strings.NewReader(string(b)))
		out = append(out, resp)
	}
	return out
}

// Request smuggling and parser differentials on the plain HTTP path: the
// origin records every path it is asked for; none outside /api may ever
// reach it.
func TestAttackHTTPSmuggling(t *testing.T) {
	checkNoLeak(t)
	var mu sync.Mutex
	var paths []string
	srv, port := origin(t)
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		w.Header().Set("X-Host", r.Host)
		io.WriteString(w, "path="+r.URL.Path+" body="+string(b))
	})
	ps := strconv.Itoa(port)
	base := "http://127.0.0.1:" + ps
	proxy, _ := startWith(t, []policy.NetRule{{Host: "127.0.0.1", Scheme: new("http"), Port: u16(port), PathPrefix: new("/api"), Allow: true}}, Config{MaxHeaderBytes: 4 << 10})

	for _, tc := range []struct {
		name, req string
		codes     []int // the responses, in order
	}{
		{"control", "GET " + base + "/api/x HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", []int{200}},
		{"pipelined second request elsewhere",
			"GET " + base + "/api/x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET " + base + "/admin HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", []int{200, 403}},
		// Both framings: refused outright (net/http let chunked win and
		// answered 200 then 400), so no reading of the body is forwarded.
		{"TE and CL: chunked body hides a request",
			"POST " + base + "/api/x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /admin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", []int{400}},
		{"two Content-Lengths", "POST " + base + "/api/x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nContent-Length: 40\r\n\r\nGET /admin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", []int{400}},
		{"duplicate Host", "GET " + base + "/api/x HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: 169.254.169.254\r\n\r\n", []int{400}},
		{"Host header names another host", "GET " + base + "/admin HTTP/1.1\r\nHost: allowed\r\nConnection: close\r\n\r\n", []int{403}},
		// Userinfo in the target: refused before any decision (it was
		// decided on the real host and refused, 403).
		{"userinfo looks like the allowed host", "GET http://127.0.0.1:" + ps + "@169.254.169.254/api/x HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", []int{400}},
		{"backslash before @", "GET http://169.254.169.254\\@127.0.0.1:" + ps + "/api/x HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", []int{400}},
		{"encoded dot segments", "GET " + base + "/api/%2e%2e/admin HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", []int{400}},
		{"encoded slash dot-dot", "GET " + base + "/api%2f..%2fadmin HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", []int{400}},
		{"backslash dot-dot", "GET " + base + "/api/..\\admin HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", []int{400}},
		{"port with leading zero", "GET http://127.0.0.1:0" + ps + "/admin HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", []int{403}},
		{"port with letters", "GET http://127.0.0.1:" + ps + "abc/api/x HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", []int{400}},
		{"IPv6 zone id", "GET http://[fe80::1%25lo]:" + ps + "/api/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", []int{403}},
		{"HTTP/1.0 origin form without Host", "GET /admin HTTP/1.0\r\n\r\n", []int{400}},
		{"HTTP/1.0 absolute form without Host", "GET " + base + "/admin HTTP/1.0\r\n\r\n", []int{403}},
		{"upgrade to a tunnel", "GET " + base + "/api/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n", []int{400}},
		{"h2c upgrade", "GET " + base + "/api/x HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n", []int{400}},
		{"header over MaxHeaderBytes", "GET " + base + "/api/x HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + strings.Repeat("a", 8<<10) + "\r\n\r\n", []int{431}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := len(tc.codes)
			if n == 0 {
				n = 2
			}
			got := rawExchange(t, proxy, tc.req, n)
			var codes []int
			for _, r := range got {
				codes = append(codes, r.StatusCode)
			}
			t.Logf("responses %v", codes)
			if !slices.Equal(codes, tc.codes) {
				t.Errorf("responses %v, want %v", codes, tc.codes)
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range paths {
		if p != "/api/x" {
			t.Errorf("the origin was asked for %q", p)
		}
	}
	if len(paths) < 2 {
		t.Errorf("positive controls did not reach the origin: %v", paths)
	}
}

// A path deny rule holds for every reading of the path a server may
// take: ";params" cut from segments (Servlet containers, Spring,
// urlparse), a backslash for a slash, a second percent-decoding. The
// origin serves the path with ";params" cut, as those servers do.
func TestAttackHTTPPathReadings(t *testing.T) {
	checkNoLeak(t)
	var mu sync.Mutex
	var served []string
	srv, port := origin(t)
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := cutParams(r.URL.Path)
		mu.Lock()
		served = append(served, p)
		mu.Unlock()
		io.WriteString(w, "path="+p)
	})
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	proxy, _ := startProxy(t, []policy.NetRule{
		{Host: "127.0.0.1", Scheme: new("http"), Port: u16(port), PathPrefix: new("/api/"), Allow: true},
		{Host: "127.0.0.1", Scheme: new("http"), Port: u16(port), PathPrefix: new("/api/admin"), Allow: false},
	}, nil)
	for _, tc := range []struct {
		path string
		code int
	}{
		{"/api/x", 200},
		{"/api/x;v=1", 200},
		{"/api/x;a/y;b", 200},
		{"/api/admin", 403},
		{"/api/admin;x", 403},
		{"/api/admin;", 403},
		{"/api;x/admin", 403},
		{"/api/admin;x/y", 403},
		{"/api/admin%3bx", 403},
		{"/api/admin%253bx", 403},
		{"/api/ad%256din", 403},
		{"/api\\admin", 403},
		{"/api/%5cadmin", 403},
		// Case-insensitive servers: a deny rule holds for any case; a
		// path merely spelled in upper case is not turned away.
		{"/api/ADMIN", 403},
		{"/api/Admin;x", 403},
		{"/api/X", 200},
	} {
		resp, body := proxyGet(t, proxy, base+tc.path)
		if resp.StatusCode != tc.code {
			t.Errorf("%s: %d %q, want %d", tc.path, resp.StatusCode, body, tc.code)
		}
		// Refused as sent, or for another reading, which is named.
		asSent := tc.path == "/api/admin" || tc.path == "/api;x/admin" || tc.path == "/api\\admin"
		if tc.code == 403 && !asSent && !strings.Contains(body, "is served as") {
			t.Errorf("%s: the refusal does not name the reading it denied: %q", tc.path, body)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range served {
		if strings.HasPrefix(strings.ToLower(p), "/api/admin") {
			t.Errorf("the origin served %q", p)
		}
	}
	if len(served) != 4 {
		t.Errorf("positive controls: the origin served %v, want 4 requests", served)
	}
}

// SOCKS5: address types, commands, auth methods and malformed input.
func TestAttackSOCKS(t *testing.T) {
	checkNoLeak(t)
	echo := echoServer(t, "tcp", "127.0.0.1:0")
	port := portOf(t, echo.Addr())
	d := &publicDialer{}
	proxy, _ := startWith(t, []policy.NetRule{{Host: "127.0.0.1", Port: u16(port), Allow: true}}, Config{Dial: d, Resolver: &fakeResolver{}, HeaderTimeout: time.Second})
	for _, tc := range []struct {
		name      string
		cmd, atyp byte
		addr      []byte
		want      byte
	}{
		{"control IPv4", socksCmdConnect, socksAtypIPv4, []byte{127, 0, 0, 1}, 0},
		{"control name spelling of the IP", socksCmdConnect, socksAtypDomain, []byte("0x7f.1"), 0},
		{"IPv4-mapped IPv6 of the allowed IP", socksCmdConnect, socksAtypIPv6, netip.MustParseAddr("::ffff:127.0.0.1").AsSlice(), 0},
		{"full-width spelling of the allowed IP (IDNA maps it)", socksCmdConnect, socksAtypDomain, []byte("１２７.０.０.１"), 0},
		{"full-width spelling of another IP", socksCmdConnect, socksAtypDomain, []byte("１２７.０.０.２"), socksNotAllowed},
		{"homograph: Cyrillic letters", socksCmdConnect, socksAtypDomain, []byte("lосalhost"), socksNotAllowed},
		{"NUL in the name", socksCmdConnect, socksAtypDomain, []byte("127.0.0.1\x00.evil.test"), socksNotAllowed},
		{"other loopback", socksCmdConnect, socksAtypIPv4, []byte{127, 0, 0, 2}, socksNotAllowed},
		{"IPv6 loopback", socksCmdConnect, socksAtypIPv6, netip.IPv6Loopback().AsSlice(), socksNotAllowed},
		{"BIND", 0x02, socksAtypIPv4, []byte{127, 0, 0, 1}, socksCmdUnsupported},
		{"UDP ASSOCIATE", 0x03, socksAtypIPv4, []byte{127, 0, 0, 1}, socksCmdUnsupported},
		{"unknown address type", socksCmdConnect, 0x09, nil, socksAtypUnsupp},
		{"empty name", socksCmdConnect, socksAtypDomain, nil, socksNotAllowed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, c := socksDial(t, proxy, tc.cmd, tc.atyp, tc.addr, port)
			if c != nil {
				echoRoundTrip(t, c)
				c.Close()
			}
			if code != tc.want {
				t.Errorf("reply %#x, want %#x", code, tc.want)
			}
		})
	}
	// Only username/password offered: no acceptable method.
	c, _ := net.Dial("tcp", proxy)
	c.SetDeadline(time.Now().Add(3 * time.Second))
	c.Write([]byte{5, 1, 2})
	b, _ := io.ReadAll(c)
	c.Close()
	if string(b) != "\x05\xff" {
		t.Errorf("auth-only greeting: %q", b)
	}
	// Truncated greetings and requests are closed within HeaderTimeout.
	for _, in := range []string{"\x05", "\x05\x02\x00", "\x05\x01\x00\x05\x01\x00\x03\x09abc"} {
		c, _ := net.Dial("tcp", proxy)
		c.SetDeadline(time.Now().Add(3 * time.Second))
		io.WriteString(c, in)
		b, err := io.ReadAll(c)
		c.Close()
		if err != nil {
			t.Errorf("%q: not closed: %v", in, err)
		}
		if strings.Contains(string(b), "\x05\x00\x00") {
			t.Errorf("%q: a truncated request succeeded", in)
		}
	}
	d.onlyDialled(t, "127.0.0.1:"+strconv.Itoa(port))
}

// MaxConns bounds the connections a tool can hold open; a connection
// over the bound is closed at once, and a freed slot is reused.
func TestAttackConnectionFlood(t *testing.T) {
	checkNoLeak(t)
	_, port := origin(t)
	proxy, s := startWith(t, []policy.NetRule{{Host: "127.0.0.1", Port: u16(port), Allow: true}}, Config{MaxConns: 4})
	var held []net.Conn
	for range 4 {
		c, err := net.Dial("tcp", proxy)
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte("G")) // past the sniffer, holding a slot
		held = append(held, c)
	}
	waitFor(t, "the proxy to accept the four connections", func() bool { return len(s.slots) == 4 })
	extra, _ := net.Dial("tcp", proxy)
	extra.SetDeadline(time.Now().Add(waitBound))
	if n, err := extra.Read(make([]byte, 1)); err == nil || n > 0 || isTimeout(err) {
		t.Errorf("connection over MaxConns was served (read %d, %v)", n, err)
	}
	extra.Close()
	for _, c := range held {
		c.Close()
	}
	waitFor(t, "the slots to be given back", func() bool { return len(s.slots) == 0 })
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/x"
	if resp, body := proxyGet(t, proxy, url); resp.StatusCode != 200 {
		t.Errorf("a freed slot was not reused: %d %q", resp.StatusCode, body)
	}
}

// recordingOrigin reads requests the way a net/http server would and
// records "METHOD PATH body=BODY x=X-A" for each; it answers 200.
func recordingOrigin(t *testing.T) (int, func() []string, func() int) {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	var live atomic.Int32
	port, _ := rawOrigin(t, func(c net.Conn, br *bufio.Reader) {
		live.Add(1)
		defer live.Add(-1)
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			b, err := io.ReadAll(req.Body)
			rec := req.Method + " " + req.URL.Path + " body=" + string(b) + " x=" + req.Header.Get("X-A")
			if err != nil {
				// A body cut short is no request to act on.
				rec = req.Method + " " + req.URL.Path + " body-error=" + err.Error()
			}
			mu.Lock()
			seen = append(seen, rec)
			mu.Unlock()
			if err != nil {
				return
			}
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		}
	})
	return port, func() []string {
			mu.Lock()
			defer mu.Unlock()
			return append([]string(nil), seen...)
		}, func() int {
			return int(live.Load())
		}
}

// Request smuggling against the proxy's own parser: each framing trick
// next to the same request framed honestly (the positive control), and
// after all of them the origin has seen only the controls' requests,
// with their bodies as bodies, and nothing was dialled but the origin.
func TestAttackHTTPFraming(t *testing.T) {
	checkNoLeak(t)
	port, seen, live := recordingOrigin(t)
	ps := strconv.Itoa(port)
	base := "http://127.0.0.1:" + ps
	d := &publicDialer{}
	proxy, s := startWith(t, []policy.NetRule{{Host: "127.0.0.1", Port: u16(port), PathPrefix: new("/api"), Allow: true}}, Config{Dial: d, MaxHeaderBytes: 4 << 10})
	// settled: the proxy holds only pooled upstream connections, and the
	// origin is done with every other (a broken body is recorded when the
	// proxy closes its upstream, after the client has its answer).
	settled := func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.conns) == s.nIdle && live() == s.nIdle
	}
	post := "POST " + base + "/api/x HTTP/1.1\r\nHost: 127.0.0.1\r\n"
	smuggled := "GET /admin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
	for _, tc := range []struct {
		name, req string
		codes     []int
		seen      string // what the origin records for it ("" nothing)
	}{
		{"control: Content-Length", post + "Content-Length: 5\r\nConnection: close\r\n\r\nhello", []int{200}, "POST /api/x body=hello x="},
		{"control: chunked", post + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n", []int{200}, "POST /api/x body=hello x="},
		{"CL.TE", post + "Content-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nG", []int{400}, ""},
		{"TE.CL", post + "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n8\r\nSMUGGLED\r\n0\r\n\r\n", []int{400}, ""},
		{"TE.CL with the request in the chunk", post + "Transfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n" + strconv.FormatInt(int64(len(smuggled)), 16) + "\r\n" + smuggled + "\r\n0\r\n\r\n", []int{400}, ""},
		{"TE obfuscated: xchunked", post + "Transfer-Encoding: xchunked\r\nContent-Length: 3\r\n\r\nabc", []int{501}, ""},
		{"TE obfuscated: space before colon", post + "Transfer-Encoding : chunked\r\n\r\n0\r\n\r\n", []int{400}, ""},
		{"TE obfuscated: vertical tab", post + "Transfer-Encoding:\x0bchunked\r\n\r\n0\r\n\r\n", []int{400}, ""},
		{"TE obfuscated: folded", post + "X-B: 1\r\n Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\nabc", []int{400}, ""},
		{"TE obfuscated: second TE line", post + "Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n0\r\n\r\n", []int{501}, ""},
		{"TE on HTTP/1.0", "POST " + base + "/api/x HTTP/1.0\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n", []int{400}, ""},
		{"two Content-Lengths, same value", post + "Content-Length: 3\r\nContent-Length: 3\r\n\r\nabc", []int{400}, ""},
		{"a request hidden in a body stays a body", post + "Content-Length: " + strconv.Itoa(len(smuggled)) + "\r\nConnection: close\r\n\r\n" + smuggled, []int{200}, "POST /api/x body=" + smuggled + " x="},
		{"chunk size past the data", post + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello" + smuggled, nil, ""},
		{"chunk size with a sign", post + "Transfer-Encoding: chunked\r\n\r\n+5\r\nhello\r\n0\r\n\r\n", nil, ""},
		{"control: header", "GET " + base + "/api/x HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a b\r\nConnection: close\r\n\r\n", []int{200}, "GET /api/x body= x=a b"},
		{"CR injection in a value", "GET " + base + "/api/x HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a\rHost: 169.254.169.254\r\n\r\n", []int{400}, ""},
		{"LF injection in a value", "GET " + base + "/api/x HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a\nHost: 169.254.169.254\r\n\r\n", []int{400}, ""},
		{"bare LF line ends", "GET " + base + "/api/x HTTP/1.1\nHost: 127.0.0.1\n\n", []int{400}, ""},
		{"NUL in a value", "GET " + base + "/api/x HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a\x00b\r\n\r\n", []int{400}, ""},
		{"CR in the target", "GET " + base + "/api/x\rX: y HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", []int{400}, ""},
		{"request line over the limit", "GET " + base + "/api/" + strings.Repeat("a", 5000) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", []int{431}, ""},
		{"many small fields over the limit", "GET " + base + "/api/x HTTP/1.1\r\nHost: 127.0.0.1\r\n" + strings.Repeat("X-F: 0123456789\r\n", 300) + "\r\n", []int{431}, ""},
		{"control: a large head under the limit", "GET " + base + "/api/x HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: " + strings.Repeat("b", 3000) + "\r\nConnection: close\r\n\r\n", []int{200}, "GET /api/x body= x=" + strings.Repeat("b", 3000)},
		{"chunk extension over the limit", post + "Transfer-Encoding: chunked\r\n\r\n5;" + strings.Repeat("e", 5000) + "\r\nhello\r\n0\r\n\r\n", nil, ""},
		{"trailers over the limit", post + "Transfer-Encoding: chunked\r\n\r\n0\r\n" + strings.Repeat("X-T: 0123456789\r\n", 300) + "\r\n", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(seen())
			got := rawExchange(t, proxy, tc.req, 3)
			waitFor(t, "the proxy and the origin to finish the exchange", settled)
			var codes []int
			for _, r := range got {
				codes = append(codes, r.StatusCode)
			}
			if tc.codes == nil {
				// A body that breaks mid-way: closed or 400, never 200.
				if len(codes) > 1 || len(codes) == 1 && codes[0] != 400 {
					t.Errorf("responses %v, want 400 or none", codes)
				}
			} else if !slices.Equal(codes, tc.codes) {
				t.Errorf("responses %v, want %v", codes, tc.codes)
			}
			after := seen()[before:]
			for _, s := range after {
				if tc.codes == nil && strings.HasPrefix(s, "POST /api/x body=hello") {
					t.Errorf("origin accepted a broken body: %q", s)
				}
			}
			if tc.seen != "" && (len(after) != 1 || after[0] != tc.seen) {
				t.Errorf("origin saw %q, want %q", after, tc.seen)
			}
			if tc.seen == "" && tc.codes != nil && len(after) != 0 {
				t.Errorf("origin saw %q", after)
			}
		})
	}
	for _, s := range seen() {
		if strings.Contains(strings.Fields(s)[1], "admin") {
			t.Errorf("the origin was asked %q", s)
		}
	}
	d.onlyDialled(t, "127.0.0.1:"+ps)
}

// Pipelining: each request on a connection is decided on its own, and a
// second request to a host no rule allows is refused without a dial,
// whichever comes first.
func TestAttackHTTPPipelining(t *testing.T) {
	checkNoLeak(t)
	port, seen, _ := recordingOrigin(t)
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	d := &publicDialer{}
	proxy, _ := startWith(t, []policy.NetRule{{Host: "127.0.0.1", Port: u16(port), PathPrefix: new("/api"), Allow: true}}, Config{Dial: d, Resolver: &fakeResolver{}})
	allowed := "GET " + base + "/api/x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
	meta := "GET http://169.254.169.254/latest/meta-data HTTP/1.1\r\nHost: 169.254.169.254\r\n\r\n"
	other := "GET http://other.test:" + strconv.Itoa(port) + "/api/x HTTP/1.1\r\nHost: other.test\r\n\r\n"
	last := "GET " + base + "/api/last HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
	for _, tc := range []struct {
		name, req string
		codes     []int
	}{
		{"control: two allowed", allowed + last, []int{200, 200}},
		{"allowed then metadata", allowed + meta + last, []int{200, 403, 200}},
		{"metadata then allowed", meta + allowed + last, []int{403, 200, 200}},
		{"allowed then another name on the same port", allowed + other + last, []int{200, 403, 200}},
		{"allowed then a refused path", allowed + "GET " + base + "/admin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" + last, []int{200, 403, 200}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := rawExchange(t, proxy, tc.req, 4)
			var codes []int
			for _, r := range got {
				codes = append(codes, r.StatusCode)
			}
			if !slices.Equal(codes, tc.codes) {
				t.Errorf("responses %v, want %v", codes, tc.codes)
			}
		})
	}
	for _, s := range seen() {
		if !strings.HasPrefix(s, "GET /api/") {
			t.Errorf("the origin was asked %q", s)
		}
	}
	d.onlyDialled(t, "127.0.0.1:"+strconv.Itoa(port))
}

// Slowloris: a head that never completes is closed at HeaderTimeout,
// unanswered and never forwarded, however the client drips it; the same
// head sent in pieces but complete is served (control). The timeout holds
// for a second request on a kept-alive connection too. The client is
// paced by the proxy's reads, not the clock; the short HeaderTimeout is
// only ever waited for, never raced.
func TestAttackSlowHead(t *testing.T) {
	checkNoLeak(t)
	port, seen, _ := recordingOrigin(t)
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	rules := []policy.NetRule{{Host: "127.0.0.1", Port: u16(port), Allow: true}}
	head := "GET " + base + "/slow HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: 1\r\n\r\n"

	// Control: three pieces, each sent once the proxy has read the one
	// before, under a HeaderTimeout nothing here comes near.
	patient := newEventListener(t, false)
	startListening(t, rules, Config{HeaderTimeout: waitBound}, patient)
	c, err := net.Dial("tcp", patient.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(waitBound))
	ec := waitChan(t, "the proxy to accept", patient.accepted)
	for i := 0; i < len(head); i += len(head)/3 + 1 {
		io.WriteString(c, head[i:min(len(head), i+len(head)/3+1)])
		waitChan(t, "the proxy to read a piece", ec.reads)
	}
	br := bufio.NewReader(c)
	if resp, err := http.ReadResponse(br, nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("slow but complete head: %v %v", resp, err)
	} else {
		io.Copy(io.Discard, resp.Body)
	}

	const timeout = 200 * time.Millisecond
	// drip sends a byte each time the proxy has read the last one until
	// the proxy closes the connection; it returns how long that took
	// from start, which is no later than the proxy's clock began.
	drip := func(c net.Conn, ec *eventConn, start time.Time) time.Duration {
		c.SetDeadline(time.Now().Add(waitBound))
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				if _, err := io.WriteString(c, "X"); err != nil {
					return
				}
				select {
				case <-ec.reads:
				case <-stop:
					return
				}
			}
		}()
		b, err := io.ReadAll(c)
		took := time.Since(start)
		close(stop)
		c.Close()
		<-done
		if isTimeout(err) {
			t.Errorf("a dripping head was not closed in %v (HeaderTimeout %v)", waitBound, timeout)
		}
		if len(b) != 0 {
			t.Errorf("a never-finished head was answered: %q", b)
		}
		return took
	}
	// The same connection, second request: a head that drips forever.
	// The first head is in before the proxy's clock starts (preload).
	kept := newEventListener(t, true)
	startListening(t, rules, Config{HeaderTimeout: timeout, MaxHeaderBytes: 1 << 20}, kept)
	c, err = net.Dial("tcp", kept.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(waitBound))
	io.WriteString(c, head)
	ec = waitChan(t, "the proxy to accept", kept.accepted)
	br = bufio.NewReader(c)
	if resp, err := http.ReadResponse(br, nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("first request on the kept-alive connection: %v %v", resp, err)
	} else {
		io.Copy(io.Discard, resp.Body)
	}
	start := time.Now()
	io.WriteString(c, "GET "+base+"/never HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Drip: ")
	if took := drip(c, ec, start); took < timeout {
		t.Errorf("kept-alive connection with a dripping head closed after %v, before HeaderTimeout %v", took, timeout)
	}
	// A new connection dripping its first head.
	fresh := newEventListener(t, false)
	startListening(t, rules, Config{HeaderTimeout: timeout, MaxHeaderBytes: 1 << 20}, fresh)
	start = time.Now()
	c2, err := net.Dial("tcp", fresh.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(c2, "GET "+base+"/never HTTP/1.1\r\n")
	if took := drip(c2, waitChan(t, "the proxy to accept", fresh.accepted), start); took < timeout {
		t.Errorf("dripping head closed after %v, before HeaderTimeout %v", took, timeout)
	}
	for _, s := range seen() {
		if strings.Contains(s, "never") {
			t.Errorf("origin was asked %q", s)
		}
	}
}

// CONNECT takes only the authority form, decides on the target (never
// the Host header), dials the port as a number, and carries bytes sent
// with the head into the tunnel.
func TestAttackCONNECTForms(t *testing.T) {
	checkNoLeak(t)
	echo := echoServer(t, "tcp", "127.0.0.1:0")
	ps := strconv.Itoa(portOf(t, echo.Addr()))
	d := &publicDialer{}
	proxy, _ := startWith(t, []policy.NetRule{{Host: "127.0.0.1", Port: u16(portOf(t, echo.Addr())), Allow: true}}, Config{Dial: d, Resolver: &fakeResolver{}})
	for _, tc := range []struct {
		name, target, host string
		code               int
	}{
		{"control", "127.0.0.1:" + ps, "127.0.0.1:" + ps, 200},
		{"leading zero in the port", "127.0.0.1:0" + ps, "", 200},
		{"origin form, target in Host", "/x", "127.0.0.1:" + ps, 400},
		{"path after the port", "127.0.0.1:" + ps + "/x", "", 400},
		{"userinfo", "u@127.0.0.1:" + ps, "", 400},
		{"no port", "127.0.0.1", "", 400},
		{"letters in the port", "127.0.0.1:" + ps + "abc", "", 400},
		{"port over 65535", "127.0.0.1:70000", "", 400},
		{"Host names the allowed endpoint", "169.254.169.254:" + ps, "127.0.0.1:" + ps, 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", proxy)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(5 * time.Second))
			req := "CONNECT " + tc.target + " HTTP/1.1\r\n"
			if tc.host != "" {
				req += "Host: " + tc.host + "\r\n"
			}
			// The first tunnel bytes go with the head, as a client
			// sending its TLS hello early would.
			io.WriteString(c, req+"\r\nping")
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"})
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.code {
				t.Fatalf("%s, want %d", resp.Status, tc.code)
			}
			if tc.code == 200 {
				b := make([]byte, 4)
				if _, err := io.ReadFull(br, b); err != nil || string(b) != "ping" {
					t.Errorf("early tunnel bytes: %q, %v", b, err)
				}
			}
		})
	}
	d.onlyDialled(t, "127.0.0.1:"+ps)
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}
