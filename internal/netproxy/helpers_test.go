package netproxy

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jp-policy/jp-policy/internal/policy"
)

func u16(n int) *uint16 { v := uint16(n); return &v }

// syncBuf is a goroutine-safe log sink.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startProxy serves a proxy for rules on a loopback listener and closes
// it at cleanup.
func startProxy(t testing.TB, rules []policy.NetRule, log io.Writer) (string, *Server) {
	t.Helper()
	return startWith(t, rules, Config{Log: log, HeaderTimeout: 5 * time.Second, DialTimeout: 2 * time.Second})
}

// startWith is startProxy with a Config (Decide is set from rules).
func startWith(t testing.TB, rules []policy.NetRule, cfg Config) (string, *Server) {
	t.Helper()
	c, err := policy.NewChecker(t.TempDir(), &policy.AccessPolicy{Net: rules})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Decide = c.CheckNetEndpoint
	if cfg.HeaderTimeout == 0 {
		cfg.HeaderTimeout = 5 * time.Second
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	t.Cleanup(func() {
		s.Close()
		if err := <-done; err != ErrServerClosed {
			t.Errorf("Serve returned %v, want ErrServerClosed", err)
		}
	})
	return l.Addr().String(), s
}

// origin is a loopback HTTP server that answers "path=<path>".
func origin(t testing.TB) (*httptest.Server, int) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Host", r.Host)
		io.WriteString(w, "path="+r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	return srv, portOf(t, srv.Listener.Addr())
}

func portOf(t testing.TB, a net.Addr) int {
	t.Helper()
	_, p, err := net.SplitHostPort(a.String())
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(p)
	return n
}

// echoServer echoes each connection until EOF.
func echoServer(t testing.TB, network, addr string) net.Listener {
	t.Helper()
	l, err := net.Listen(network, addr)
	if err != nil {
		t.Skipf("no %s listener on %s: %v", network, addr, err)
	}
	serveConns(t, l, func(c net.Conn) { io.Copy(c, c) })
	return l
}

// serveConns runs handle for each connection accepted on l (closing the
// connection after it) until cleanup, which closes l and waits.
func serveConns(t testing.TB, l net.Listener, handle func(net.Conn)) {
	var wg sync.WaitGroup
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				handle(c)
			})
		}
	}()
	t.Cleanup(func() { l.Close(); wg.Wait() })
}

// connectTunnel opens a CONNECT tunnel to target through proxy and
// returns the response, the connection and its reader (which may hold
// tunnel bytes already).
func connectTunnel(t testing.TB, proxy, target string) (*http.Response, net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", proxy)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(c, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"})
	if err != nil {
		t.Fatalf("CONNECT %s: %v", target, err)
	}
	return resp, c, br
}

// closedPort returns a loopback port nothing listens on.
func closedPort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := portOf(t, l.Addr())
	l.Close()
	return p
}

// proxyGet sends one absolute-form request through the proxy.
func proxyGet(t testing.TB, proxy, rawURL string) (*http.Response, string) {
	t.Helper()
	c, err := net.Dial("tcp", proxy)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	host := rawURL[strings.Index(rawURL, "//")+2:]
	if i := strings.IndexByte(host, '/'); i >= 0 {
		host = host[:i]
	}
	io.WriteString(c, "GET "+rawURL+" HTTP/1.1\r\nHost: "+host+"\r\nConnection: close\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("GET %s: %v", rawURL, err)
	}
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// socksDial runs a SOCKS5 handshake for cmd to (atyp, addr, port) and
// returns the reply code and the connection (open on success).
func socksDial(t testing.TB, proxy string, cmd, atyp byte, addr []byte, port int) (byte, net.Conn) {
	t.Helper()
	c, err := net.Dial("tcp", proxy)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(5 * time.Second))
	c.Write([]byte{5, 1, 0})
	var g [2]byte
	if _, err := io.ReadFull(c, g[:]); err != nil || g != [2]byte{5, 0} {
		t.Fatalf("greeting reply %v, %v", g, err)
	}
	req := []byte{5, cmd, 0, atyp}
	if atyp == socksAtypDomain {
		req = append(req, byte(len(addr)))
	}
	req = append(req, addr...)
	req = append(req, byte(port>>8), byte(port))
	c.Write(req)
	var h [4]byte
	if _, err := io.ReadFull(c, h[:]); err != nil {
		t.Fatalf("reading reply: %v", err)
	}
	n := 4
	if h[3] == socksAtypIPv6 {
		n = 16
	}
	io.ReadFull(c, make([]byte, n+2))
	c.SetDeadline(time.Time{})
	if h[1] != 0 {
		c.Close()
		return h[1], nil
	}
	return 0, c
}

func echoRoundTrip(t testing.TB, c net.Conn) {
	t.Helper()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, "ping"); err != nil {
		t.Fatal(err)
	}
	var b [4]byte
	if _, err := io.ReadFull(c, b[:]); err != nil || string(b[:]) != "ping" {
		t.Fatalf("echo through tunnel: %q, %v", b, err)
	}
}

// checkNoLeak fails when goroutines started during the test outlive it.
func checkNoLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		var n int
		for deadline := time.Now().Add(waitBound); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
			n = runtime.NumGoroutine()
			if n <= before {
				return
			}
		}
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Errorf("goroutine leak: %d before, %d after\n%s", before, n, buf)
	})
}

// fakeResolver answers from a table (names not in it do not exist) and
// records every name it is asked, so tests never touch real DNS.
type fakeResolver struct {
	mu    sync.Mutex
	table map[string][]netip.Addr
	asked []string
}

func (r *fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, host)
	if a, ok := r.table[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (r *fakeResolver) set(host string, addrs ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.table == nil {
		r.table = map[string][]netip.Addr{}
	}
	r.table[host] = nil
	for _, a := range addrs {
		r.table[host] = append(r.table[host], netip.MustParseAddr(a))
	}
}

func (r *fakeResolver) names() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.asked, " ")
}

// connListener is an in-memory listener: deliver hands it connections
// (net.Pipe ends) for Serve to accept.
type connListener struct {
	addr net.Addr
	ch   chan net.Conn
	once sync.Once
	done chan struct{}
}

func newConnListener(addr net.Addr) *connListener {
	return &connListener{addr: addr, ch: make(chan net.Conn), done: make(chan struct{})}
}

func (l *connListener) deliver(c net.Conn) bool {
	select {
	case l.ch <- c:
		return true
	case <-l.done:
		return false
	}
}

func (l *connListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *connListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *connListener) Addr() net.Addr { return l.addr }

// waitFor polls cond until it holds. The bound is generous: it only
// matters when the test is failing, never for a passing run's timing.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(waitBound); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting after %v for %s", waitBound, what)
		}
	}
}

// waitBound bounds waits on events that a passing test sees at once.
const waitBound = 30 * time.Second

// waitChan waits for ch to be closed (or to deliver), bounded as waitFor.
func waitChan[T any](t testing.TB, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitBound):
		t.Fatalf("still waiting after %v for %s", waitBound, what)
		panic("unreachable")
	}
}

// startListening serves a proxy for rules on l (see eventListener) and
// closes it at cleanup.
func startListening(t *testing.T, rules []policy.NetRule, cfg Config, l net.Listener) *Server {
	t.Helper()
	c, err := policy.NewChecker(t.TempDir(), &policy.AccessPolicy{Net: rules})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Decide = c.CheckNetEndpoint
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	t.Cleanup(func() { s.Close(); <-done })
	return s
}

// eventListener hands Serve connections that report the proxy's reads,
// so a test paces a client on what the proxy has read instead of on the
// clock. With preload, a connection reaches Serve only once the client's
// first request head ("\r\n\r\n") has arrived in full, and the proxy
// reads that head from memory, where no deadline applies: a test of a
// timeout that starts at accept does not also race the head's arrival.
type eventListener struct {
	net.Listener
	preload  bool
	accepted chan *eventConn
}

func newEventListener(t *testing.T, preload bool) *eventListener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return &eventListener{Listener: l, preload: preload, accepted: make(chan *eventConn, 16)}
}

func (l *eventListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	ec := &eventConn{Conn: c, reads: make(chan int, 1<<16)}
	if l.preload {
		c.SetReadDeadline(time.Now().Add(waitBound))
		var b []byte
		one := make([]byte, 1)
		for !bytes.HasSuffix(b, []byte("\r\n\r\n")) {
			if _, err := c.Read(one); err != nil {
				break
			}
			b = append(b, one[0])
		}
		c.SetReadDeadline(time.Time{})
		ec.pre = b
	}
	l.accepted <- ec
	return ec, nil
}

// eventConn sends the size of each Read that returned data on reads.
type eventConn struct {
	net.Conn
	pre   []byte
	reads chan int
}

func (c *eventConn) Read(p []byte) (int, error) {
	if len(c.pre) > 0 {
		n := copy(p, c.pre)
		c.pre = c.pre[n:]
		return n, nil
	}
	n, err := c.Conn.Read(p)
	if n > 0 {
		select {
		case c.reads <- n:
		default:
		}
	}
	return n, err
}

func (c *eventConn) CloseWrite() error { return c.Conn.(*net.TCPConn).CloseWrite() }
