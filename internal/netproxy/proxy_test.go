package netproxy

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jp-policy/jp-policy/internal/policy"
)

func TestHTTPForward(t *testing.T) {
	checkNoLeak(t)
	_, port := origin(t)
	other := closedPort(t)
	log := &syncBuf{}
	proxy, _ := startProxy(t, []policy.NetRule{
		{Host: "127.0.0.1", Scheme: new("http"), Port: u16(port), PathPrefix: new("/api"), Allow: true},
		{Host: "127.0.0.1", Scheme: new("http"), Port: u16(port), PathPrefix: new("/api/secret"), Allow: false},
		{Host: "127.0.0.1", Scheme: new("http"), Port: u16(other), Allow: true},
	}, log)
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	for _, tc := range []struct {
		url      string
		code     int
		contains string
	}{
		{base + "/api/x", 200, "path=/api/x"},
		{base + "/api", 200, "path=/api"},
		{"http://0x7f.1:" + strconv.Itoa(port) + "/api/y", 200, "path=/api/y"},
		{"http://2130706433:" + strconv.Itoa(port) + "/api/%7Ez", 200, "path=/api/~z"},
		{base + "/other", 403, `no rule matches "http://127.0.0.1:` + strconv.Itoa(port) + `/other"`},
		{base + "/apix", 403, "is granted on: http://127.0.0.1:"},
		{base + "/api/secret/k", 403, `rule "http://127.0.0.1:` + strconv.Itoa(port) + `/api/secret" matches`},
		{base + "/api/%2e%2e/other", 400, "segments"},
		{"http://127.0.0.1:" + strconv.Itoa(port+1) + "/api/x", 403, "denied"},
		{"http://[::1]:" + strconv.Itoa(port) + "/api/x", 403, "denied"},
		{"http://localhost:" + strconv.Itoa(port) + "/api/x", 403, "denied"},
		{"http://127.0.0.1:" + strconv.Itoa(other) + "/", 502, "cannot reach 127.0.0.1:" + strconv.Itoa(other)},
		{"https://127.0.0.1:" + strconv.Itoa(port) + "/api/x", 400, "use CONNECT"},
	} {
		resp, body := proxyGet(t, proxy, tc.url)
		if resp.StatusCode != tc.code || !strings.Contains(body, tc.contains) {
			t.Errorf("GET %s: %d %q; want %d containing %q", tc.url, resp.StatusCode, body, tc.code, tc.contains)
		}
	}
	// The upstream sees the canonical host, not the client's spelling.
	resp, _ := proxyGet(t, proxy, "http://0x7f.1:"+strconv.Itoa(port)+"/api/h")
	if h := resp.Header.Get("X-Host"); h != "127.0.0.1:"+strconv.Itoa(port) {
		t.Errorf("upstream Host = %q", h)
	}
	// A protocol upgrade is not forwarded.
	uc, _ := net.Dial("tcp", proxy)
	defer uc.Close()
	io.WriteString(uc, "GET "+base+"/api/ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n")
	if r, err := http.ReadResponse(bufio.NewReader(uc), nil); err != nil || r.StatusCode != 400 {
		t.Errorf("upgrade request: %v, %v", r, err)
	}
	// An origin-form request is not a proxy request.
	c, _ := net.Dial("tcp", proxy)
	defer c.Close()
	io.WriteString(c, "GET /api/x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	if r, err := http.ReadResponse(bufio.NewReader(c), nil); err != nil || r.StatusCode != 400 {
		t.Errorf("origin-form request: %v, %v", r, err)
	}
	// One line per decision: the 400s (dot segments, https://,
	// origin-form) were not decided.
	if n := strings.Count(log.String(), "\n"); n != 12 {
		t.Errorf("decision log has %d lines, want 12:\n%s", n, log)
	}
}

// Each request on a kept-alive connection is decided on its own, and
// hop-by-hop headers do not reach the upstream.
func TestHTTPKeepAliveRedecides(t *testing.T) {
	checkNoLeak(t)
	seen := make(chan http.Header, 4)
	srv, port := origin(t)
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Clone()
		io.WriteString(w, "path="+r.URL.Path)
	})
	proxy, _ := startProxy(t, []policy.NetRule{{Host: "127.0.0.1", Port: u16(port), PathPrefix: new("/ok"), Allow: true}}, nil)
	c, err := net.Dial("tcp", proxy)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	for _, tc := range []struct {
		path string
		code int
	}{{"/ok/1", 200}, {"/no", 403}, {"/ok/2", 200}} {
		io.WriteString(c, "GET "+base+tc.path+" HTTP/1.1\r\nHost: 127.0.0.1\r\nProxy-Connection: keep-alive\r\nProxy-Authorization: Basic eDp5\r\nConnection: keep-alive, X-Secret\r\nX-Secret: s\r\n\r\n")
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.code {
			t.Errorf("%s: %d, want %d", tc.path, resp.StatusCode, tc.code)
		}
		if tc.code == 200 {
			h := <-seen
			for _, k := range []string{"Proxy-Connection", "Proxy-Authorization", "X-Secret", "Connection"} {
				if h.Get(k) != "" {
					t.Errorf("hop-by-hop header %s reached the upstream", k)
				}
			}
		}
	}
}

func TestCONNECT(t *testing.T) {
	checkNoLeak(t)
	echo := echoServer(t, "tcp", "127.0.0.1:0")
	port := portOf(t, echo.Addr())
	closed := closedPort(t)
	pathOnly := closedPort(t)
	proxy, _ := startProxy(t, []policy.NetRule{
		{Host: "127.0.0.1", Port: u16(port), Allow: true},
		{Host: "127.0.0.1", Port: u16(closed), Allow: true},
		{Host: "127.0.0.1", Port: u16(pathOnly), PathPrefix: new("/api"), Allow: true},
	}, nil)
	connect := func(target string) (*http.Response, net.Conn, *bufio.Reader) { return connectTunnel(t, proxy, target) }
	resp, c, _ := connect("127.0.0.1:" + strconv.Itoa(port))
	if resp.StatusCode != 200 {
		t.Fatalf("allowed CONNECT: %d", resp.StatusCode)
	}
	echoRoundTrip(t, c)
	c.Close()
	resp, c, _ = connect("0x7f.0.0.1:" + strconv.Itoa(port))
	if resp.StatusCode != 200 {
		t.Errorf("CONNECT by a numeric spelling: %d", resp.StatusCode)
	}
	c.Close()
	for _, tc := range []struct {
		target, contains string
		code             int
	}{
		{"127.0.0.1:" + strconv.Itoa(port+1), "denied", 403},
		{"localhost:" + strconv.Itoa(port), "denied", 403},
		{"127.0.0.1:" + strconv.Itoa(pathOnly), "allows only some paths", 403},
		{"127.0.0.1:" + strconv.Itoa(closed), "cannot reach", 502},
		{"127.0.0.1", "host:port", 400},
	} {
		resp, c, _ := connect(tc.target)
		body, _ := io.ReadAll(resp.Body)
		c.Close()
		if resp.StatusCode != tc.code || !strings.Contains(string(body), tc.contains) {
			t.Errorf("CONNECT %s: %d %q, want %d containing %q", tc.target, resp.StatusCode, body, tc.code, tc.contains)
		}
	}
}

func TestSOCKS5(t *testing.T) {
	checkNoLeak(t)
	echo := echoServer(t, "tcp", "127.0.0.1:0")
	port := portOf(t, echo.Addr())
	closed := closedPort(t)
	rules := []policy.NetRule{
		{Host: "127.0.0.1", Port: u16(port), Allow: true},
		{Host: "127.0.0.1", Port: u16(closed), Allow: true},
	}
	var echo6 net.Listener
	if l, err := net.Listen("tcp", "[::1]:0"); err == nil {
		l.Close()
		echo6 = echoServer(t, "tcp", "[::1]:0")
		rules = append(rules, policy.NetRule{Host: "::1", Port: u16(portOf(t, echo6.Addr())), Allow: true})
	}
	log := &syncBuf{}
	proxy, _ := startProxy(t, rules, log)
	lo4 := []byte{127, 0, 0, 1}
	for _, tc := range []struct {
		name       string
		cmd, atyp  byte
		addr       []byte
		port, want int
	}{
		{"ipv4", 1, 1, lo4, port, 0},
		{"domain", 1, 3, []byte("127.0.0.1"), port, 0},
		{"numeric-domain", 1, 3, []byte("2130706433"), port, 0},
		{"trailing-dot", 1, 3, []byte("127.0.0.1."), port, 0},
		{"other-port", 1, 1, lo4, port + 1, socksNotAllowed},
		{"other-host", 1, 3, []byte("localhost"), port, socksNotAllowed},
		{"bad-host", 1, 3, []byte("a..b"), port, socksNotAllowed},
		{"refused", 1, 1, lo4, closed, socksConnRefused},
		{"bind", 2, 1, lo4, port, socksCmdUnsupported},
		{"udp-associate", 3, 1, lo4, port, socksCmdUnsupported},
	} {
		code, c := socksDial(t, proxy, tc.cmd, tc.atyp, tc.addr, tc.port)
		if int(code) != tc.want {
			t.Errorf("%s: reply %#x, want %#x", tc.name, code, tc.want)
		}
		if c != nil {
			echoRoundTrip(t, c)
			c.Close()
		}
	}
	if echo6 != nil {
		code, c := socksDial(t, proxy, 1, 4, net.ParseIP("::1").To16(), portOf(t, echo6.Addr()))
		if code != 0 {
			t.Errorf("ipv6: reply %#x", code)
		} else {
			echoRoundTrip(t, c)
			c.Close()
		}
	}
	// Unknown address type: reply 0x08.
	c, _ := net.Dial("tcp", proxy)
	c.SetDeadline(time.Now().Add(5 * time.Second))
	c.Write([]byte{5, 1, 0, 5, 1, 0, 9, 0, 0})
	b := make([]byte, 4)
	io.ReadFull(c, b[:2])
	io.ReadFull(c, b)
	if b[1] != socksAtypUnsupp {
		t.Errorf("address type 9: reply %v", b)
	}
	c.Close()
	// Only username/password offered: no acceptable method.
	c, _ = net.Dial("tcp", proxy)
	c.SetDeadline(time.Now().Add(5 * time.Second))
	c.Write([]byte{5, 1, 2})
	io.ReadFull(c, b[:2])
	if b[0] != 5 || b[1] != 0xFF {
		t.Errorf("auth method 2 only: reply %v", b[:2])
	}
	c.Close()
	// The log says which rule decided, or why not.
	var sawDenied bool
	for line := range strings.SplitSeq(strings.TrimSpace(log.String()), "\n") {
		var e LogEntry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if e.Kind != "socks5" || e.Client == "" || e.Time.IsZero() {
			t.Errorf("log line %q", line)
		}
		if !e.Allowed && e.Port == port+1 {
			sawDenied = strings.Contains(e.Reason, "access denied") && e.Canonical == "127.0.0.1"
		}
		if e.Host == "2130706433" && (e.Canonical != "127.0.0.1" || !e.Allowed || e.Rule == nil) {
			t.Errorf("numeric host logged as %+v", e)
		}
	}
	if !sawDenied {
		t.Errorf("no denial with a reason in the log:\n%s", log)
	}
}

// Close ends open tunnels and kept-alive connections; Shutdown waits for
// them until its context ends.
func TestCloseAndShutdown(t *testing.T) {
	checkNoLeak(t)
	echo := echoServer(t, "tcp", "127.0.0.1:0")
	port := portOf(t, echo.Addr())
	proxy, s := startProxy(t, []policy.NetRule{{Host: "127.0.0.1", Port: u16(port), Allow: true}}, nil)
	_, tun := socksDial(t, proxy, 1, 1, []byte{127, 0, 0, 1}, port)
	echoRoundTrip(t, tun)
	idle, _ := net.Dial("tcp", proxy) // never sends a byte
	half, _ := net.Dial("tcp", proxy)
	half.Write([]byte("GET http://127.0.0.1/ HTTP/1.1\r\n")) // incomplete header
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := s.Shutdown(ctx); err != context.DeadlineExceeded {
		t.Errorf("Shutdown with an open tunnel = %v, want DeadlineExceeded", err)
	}
	for _, c := range []net.Conn{tun, idle, half} {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		// EOF or a reset both mean closed; a timeout means still open.
		if _, err := io.Copy(io.Discard, c); err != nil && os.IsTimeout(err) {
			t.Errorf("connection not closed by Shutdown: %v", err)
		}
		c.Close()
	}
	if _, err := net.Dial("tcp", proxy); err == nil {
		t.Error("listener still accepts after Shutdown")
	}
}

func TestNewNeedsDecide(t *testing.T) {
	if _, err := New(Config{}); err == nil {
		t.Error("New without Decide succeeded")
	}
}

func TestEnv(t *testing.T) {
	got := strings.Join(Env("127.0.0.1:1080"), " ")
	want := "HTTP_PROXY=http://127.0.0.1:1080 HTTPS_PROXY=http://127.0.0.1:1080 ALL_PROXY=socks5h://127.0.0.1:1080 NO_PROXY= " +
		"http_proxy=http://127.0.0.1:1080 https_proxy=http://127.0.0.1:1080 all_proxy=socks5h://127.0.0.1:1080 no_proxy="
	if got != want {
		t.Errorf("Env = %q\nwant  %q", got, want)
	}
}

// redirectDialer records the address it is asked for and connects to
// target instead, so tests can use names that do not resolve.
type redirectDialer struct {
	target string
	mu     sync.Mutex
	asked  []string
}

func (d *redirectDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.asked = append(d.asked, addr)
	d.mu.Unlock()
	var nd net.Dialer
	return nd.DialContext(ctx, network, d.target)
}

// Whatever spelling the client uses (Unicode, upper case, trailing dot,
// Punycode), the proxy dials the one canonical host the policy matched.
// Over HTTP the host must be ASCII (net/http refuses a raw UTF-8 Host,
// and clients send Punycode); SOCKS carries the name as bytes.
func TestDialsCanonicalHost(t *testing.T) {
	checkNoLeak(t)
	echo := echoServer(t, "tcp", "127.0.0.1:0")
	_, port := origin(t)
	c, err := policy.NewChecker(t.TempDir(), &policy.AccessPolicy{Net: []policy.NetRule{
		{Host: "münchen.test", Port: u16(8443), Allow: true},
		{Host: "münchen.test", Scheme: new("http"), Allow: true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, host, socksHost string }{
		{"unicode", "XN--MNCHEN-3YA.test.", "MÜNCHEN.test."},
		{"punycode", "xn--mnchen-3ya.TEST", "xn--mnchen-3ya.test"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &redirectDialer{target: echo.Addr().String()}
			res := &fakeResolver{}
			res.set("xn--mnchen-3ya.test", "203.0.113.7")
			s, _ := New(Config{Decide: c.CheckNetEndpoint, Dial: d, Resolver: res})
			l, _ := net.Listen("tcp", "127.0.0.1:0")
			done := make(chan error, 1)
			go func() { done <- s.Serve(l) }()
			defer func() { s.Close(); <-done }()
			proxy := l.Addr().String()
			resp, conn, br := connectTunnel(t, proxy, tc.host+":8443")
			if resp.StatusCode != 200 {
				t.Fatalf("CONNECT: %s", resp.Status)
			}
			io.WriteString(conn, "ping")
			b := make([]byte, 4)
			io.ReadFull(br, b)
			conn.Close()
			code, sc := socksDial(t, proxy, socksCmdConnect, socksAtypDomain, []byte(tc.socksHost), 8443)
			if code != 0 {
				t.Fatalf("SOCKS: %#x", code)
			}
			echoRoundTrip(t, sc)
			sc.Close()
			d.target = "127.0.0.1:" + strconv.Itoa(port)
			if resp, body := proxyGet(t, proxy, "http://"+tc.host+"/x"); resp.StatusCode != 200 {
				t.Fatalf("GET: %d %s", resp.StatusCode, body)
			}
			d.mu.Lock()
			defer d.mu.Unlock()
			want := "203.0.113.7:8443 203.0.113.7:8443 203.0.113.7:80"
			if got := strings.Join(d.asked, " "); got != want {
				t.Errorf("dialled %q, want %q", got, want)
			}
			if got, want := res.names(), "xn--mnchen-3ya.test xn--mnchen-3ya.test xn--mnchen-3ya.test"; got != want {
				t.Errorf("resolved %q, want %q", got, want)
			}
		})
	}
}

// A decider that allows everything still cannot make the proxy dial a
// host the policy cannot canonicalise.
func TestPermissiveDeciderFailsClosed(t *testing.T) {
	checkNoLeak(t)
	d := &redirectDialer{target: "127.0.0.1:1"}
	s, _ := New(Config{Decide: func(string, string, int, string) policy.Decision { return policy.Decision{Allowed: true} }, Dial: d})
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	defer func() { s.Close(); <-done }()
	if code, _ := socksDial(t, l.Addr().String(), socksCmdConnect, socksAtypDomain, []byte("a..b"), 80); code != socksNotAllowed {
		t.Errorf("SOCKS to a bad name: reply %#x", code)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.asked) != 0 {
		t.Errorf("dialled %v", d.asked)
	}
}

// The launcher creates the listener in the tool's namespace and passes
// it over a file descriptor; a listener rebuilt from a file serves the
// same.
func TestServeListenerFromFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a listener cannot be passed as a file on Windows")
	}
	checkNoLeak(t)
	_, port := origin(t)
	orig, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f, err := orig.(*net.TCPListener).File()
	orig.Close()
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.FileListener(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	c, _ := policy.NewChecker(t.TempDir(), &policy.AccessPolicy{Net: []policy.NetRule{{Host: "127.0.0.1", Port: u16(port), Allow: true}}})
	s, _ := New(Config{Decide: c.CheckNetEndpoint})
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	defer func() { s.Close(); <-done }()
	if resp, body := proxyGet(t, l.Addr().String(), "http://127.0.0.1:"+strconv.Itoa(port)+"/f"); resp.StatusCode != 200 || body != "path=/f" {
		t.Errorf("through a listener from a file: %d %q", resp.StatusCode, body)
	}
}

// hasDotSegment reads the path as the most permissive server would.
func TestHasDotSegment(t *testing.T) {
	for p, want := range map[string]bool{
		"/api/x":                 false,
		"/api/a..b":              false,
		"/api/.well-known/x":     false,
		"/api/x;v=1":             false,
		"/api/../admin":          true,
		"/api/./x":               true,
		"/api/..;/admin":         true,
		"/api/..;jsessionid=1/a": true,
		"/api/..\\admin":         true,
		"/api/%2e%2e/admin":      true,
		"/api/%252e%252e/admin":  true,
		"/api/%25252e%25252e/a":  true,
		"/api/..%5cadmin":        true,
		"/api/%zz/x":             false,
	} {
		if got := hasDotSegment(p); got != want {
			t.Errorf("hasDotSegment(%q) = %v, want %v", p, got, want)
		}
	}
}
