package netproxy

// The plain HTTP path's own framing: bodies in both directions, Expect,
// HTTP/1.0 clients, upstream reuse and its retry, and response framing
// the proxy re-frames.

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// rawOrigin serves each connection with handle (raw bytes, for
// responses net/http would not write) and counts connections.
func rawOrigin(t *testing.T, handle func(c net.Conn, br *bufio.Reader)) (int, *atomic.Int32) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int32
	serveConns(t, l, func(c net.Conn) {
		n.Add(1)
		c.SetDeadline(time.Now().Add(waitBound))
		handle(c, bufio.NewReader(c))
	})
	return portOf(t, l.Addr()), &n
}

// countingOrigin is a net/http origin serving handler that counts the
// connections it accepts.
func countingOrigin(t *testing.T, handler http.HandlerFunc) (int, *atomic.Int32) {
	t.Helper()
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(handler)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return portOf(t, srv.Listener.Addr()), &conns
}

// exchange writes req on c and reads one response (body read in full).
func exchange(t *testing.T, c net.Conn, br *bufio.Reader, req string, method string) (*http.Response, string) {
	t.Helper()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		t.Fatalf("reading the response to %q: %v", req, err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the body: %v", err)
	}
	return resp, string(b)
}

func TestHTTPBodies(t *testing.T) {
	checkNoLeak(t)
	port, conns := countingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		switch r.URL.Path {
		case "/chunked":
			w.Write([]byte("a"))
			w.(http.Flusher).Flush()
			w.Write([]byte("b"))
		case "/head":
			w.Header().Set("Content-Length", "7")
		default:
			io.WriteString(w, r.Method+" "+r.URL.RequestURI()+" te="+strings.Join(r.TransferEncoding, ",")+" cl="+strconv.FormatInt(r.ContentLength, 10)+" body="+string(b)+" x="+r.Header.Get("X-A")+" expect="+r.Header.Get("Expect"))
		}
	})
	proxy, _ := startProxy(t, []policy.NetRule{{Host: "127.0.0.1", Port: u16(port), Allow: true}}, nil)
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	c, err := net.Dial("tcp", proxy)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	for _, tc := range []struct {
		name, req, method, want string
	}{
		{"Content-Length body", "POST " + base + "/p?q=1 HTTP/1.1\r\nHost: x\r\nX-A: 1\r\nContent-Length: 5\r\n\r\nhello", "POST", "POST /p?q=1 te= cl=5 body=hello x=1 expect="},
		{"chunked body, extensions and trailers dropped", "POST " + base + "/c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nhel\r\n2\r\nlo\r\n0\r\nX-T: 1\r\n\r\n", "POST", "POST /c te=chunked cl=-1 body=hello x= expect="},
		{"empty chunked body", "POST " + base + "/e HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", "POST", "POST /e te=chunked cl=-1 body= x= expect="},
		{"GET with Content-Length 0", "GET " + base + "/z HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", "GET", "GET /z te= cl=0 body= x= expect="},
		{"chunked response", "GET " + base + "/chunked HTTP/1.1\r\nHost: x\r\n\r\n", "GET", "ab"},
		{"HEAD keeps Content-Length, sends no body", "HEAD " + base + "/head HTTP/1.1\r\nHost: x\r\n\r\n", "HEAD", ""},
		{"query only", "GET " + base + "?k=v HTTP/1.1\r\nHost: x\r\n\r\n", "GET", "GET /?k=v te= cl=0 body= x= expect="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := exchange(t, c, br, tc.req, tc.method)
			if resp.StatusCode != 200 || body != tc.want {
				t.Errorf("%d %q, want 200 %q", resp.StatusCode, body, tc.want)
			}
			if tc.method == "HEAD" && resp.ContentLength != 7 {
				t.Errorf("HEAD Content-Length %d", resp.ContentLength)
			}
			if tc.name == "chunked response" && (len(resp.TransferEncoding) != 1 || resp.Close) {
				t.Errorf("chunked response relayed as %v, close=%v", resp.TransferEncoding, resp.Close)
			}
		})
	}
	// One client connection, one upstream connection for all of it.
	if n := conns.Load(); n != 1 {
		t.Errorf("the origin saw %d connections, want 1 (kept upstream)", n)
	}

	// Expect: 100-continue is answered by the proxy once decided; the
	// upstream gets a plain request.
	t.Run("Expect", func(t *testing.T) {
		c, _ := net.Dial("tcp", proxy)
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		br := bufio.NewReader(c)
		io.WriteString(c, "PUT "+base+"/x HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n")
		line, _ := br.ReadString('\n')
		blank, _ := br.ReadString('\n')
		if line != "HTTP/1.1 100 Continue\r\n" || blank != "\r\n" {
			t.Fatalf("interim response %q %q", line, blank)
		}
		resp, body := exchange(t, c, br, "ok", "PUT")
		if resp.StatusCode != 200 || body != "PUT /x te= cl=2 body=ok x= expect=" {
			t.Errorf("%d %q", resp.StatusCode, body)
		}
		c2, _ := net.Dial("tcp", proxy)
		defer c2.Close()
		if resp, _ := exchange(t, c2, bufio.NewReader(c2), "PUT "+base+"/x HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nExpect: magic\r\n\r\nok", "PUT"); resp.StatusCode != 417 {
			t.Errorf("Expect: magic: %d", resp.StatusCode)
		}
	})

	// An HTTP/1.0 client gets a chunked response as plain bytes to the
	// close.
	t.Run("HTTP/1.0 client", func(t *testing.T) {
		c, _ := net.Dial("tcp", proxy)
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		io.WriteString(c, "GET "+base+"/chunked HTTP/1.0\r\n\r\n")
		all, _ := io.ReadAll(c)
		s := string(all)
		if !strings.HasPrefix(s, "HTTP/1.1 200 ") || !strings.HasSuffix(s, "\r\n\r\nab") || strings.Contains(s, "chunked") || !strings.Contains(s, "Connection: close\r\n") {
			t.Errorf("response %q", s)
		}
	})
}

// Responses the proxy frames itself: close-delimited, a kept upstream
// that the origin closed while idle (retried once for a request without
// a body), and a response with more bytes than its framing (never
// relayed, never reused).
func TestHTTPResponseFraming(t *testing.T) {
	checkNoLeak(t)
	readHead := func(br *bufio.Reader) bool {
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				return false
			}
			if l == "\r\n" {
				return true
			}
		}
	}
	closeDelim, _ := rawOrigin(t, func(c net.Conn, br *bufio.Reader) {
		readHead(br)
		io.WriteString(c, "HTTP/1.1 200 OK\r\nX-O: 1\r\n\r\nuntil the end")
	})
	oneShot, oneShotConns := rawOrigin(t, func(c net.Conn, br *bufio.Reader) {
		// Answers one request as if keeping the connection, then closes.
		readHead(br)
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	})
	extra, extraConns := rawOrigin(t, func(c net.Conn, br *bufio.Reader) {
		for readHead(br) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nevil")
		}
	})
	bad, _ := rawOrigin(t, func(c net.Conn, br *bufio.Reader) {
		readHead(br)
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok")
	})
	var rules []policy.NetRule
	for _, p := range []int{closeDelim, oneShot, extra, bad} {
		rules = append(rules, policy.NetRule{Host: "127.0.0.1", Port: u16(p), Allow: true})
	}
	proxy, _ := startProxy(t, rules, nil)
	url := func(p int) string { return "http://127.0.0.1:" + strconv.Itoa(p) + "/" }

	c, _ := net.Dial("tcp", proxy)
	defer c.Close()
	br := bufio.NewReader(c)
	resp, body := exchange(t, c, br, "GET "+url(closeDelim)+" HTTP/1.1\r\nHost: x\r\n\r\n", "GET")
	if resp.StatusCode != 200 || body != "until the end" || !resp.Close || resp.Header.Get("X-O") != "1" {
		t.Errorf("close-delimited: %d %q close=%v", resp.StatusCode, body, resp.Close)
	}

	c, _ = net.Dial("tcp", proxy)
	defer c.Close()
	br = bufio.NewReader(c)
	for i := range 3 {
		resp, body := exchange(t, c, br, "GET "+url(oneShot)+" HTTP/1.1\r\nHost: x\r\n\r\n", "GET")
		if resp.StatusCode != 200 || body != "ok" {
			t.Errorf("request %d to an origin that closes: %d %q", i, resp.StatusCode, body)
		}
		// Whether the proxy sees the origin's close before the next
		// request or on it (then it retries the GET on a new
		// connection), each request gets a connection of its own.
	}
	if n := oneShotConns.Load(); n != 3 {
		t.Errorf("origin saw %d connections, want 3", n)
	}

	c, _ = net.Dial("tcp", proxy)
	defer c.Close()
	br = bufio.NewReader(c)
	for range 2 {
		resp, body := exchange(t, c, br, "GET "+url(extra)+" HTTP/1.1\r\nHost: x\r\n\r\n", "GET")
		if resp.StatusCode != 200 || body != "ok" {
			t.Errorf("over-long response relayed: %d %q", resp.StatusCode, body)
		}
	}
	if n := extraConns.Load(); n != 2 {
		t.Errorf("a connection with bytes past the response was reused (%d connections)", n)
	}

	c, _ = net.Dial("tcp", proxy)
	defer c.Close()
	if resp, body := exchange(t, c, bufio.NewReader(c), "GET "+url(bad)+" HTTP/1.1\r\nHost: x\r\n\r\n", "GET"); resp.StatusCode != 502 || !strings.Contains(body, "Content-Length") {
		t.Errorf("two Content-Lengths from upstream: %d %q", resp.StatusCode, body)
	}
}

// A client that stops sending its body after the upstream has answered
// (or never finishes it) cannot keep the connection: the proxy closes
// it instead of reading what follows as a request.
func TestHTTPEarlyResponse(t *testing.T) {
	checkNoLeak(t)
	var mu sync.Mutex
	var paths []string
	port, _ := rawOrigin(t, func(c net.Conn, br *bufio.Reader) {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		mu.Lock()
		paths = append(paths, req.URL.Path)
		mu.Unlock()
		// Answer at once, without reading the body.
		io.WriteString(c, "HTTP/1.1 413 Too Large\r\nContent-Length: 0\r\n\r\n")
		// Stay until the proxy lets go: closing with the body unread
		// would reset the connection, maybe before the proxy has read
		// the answer.
		io.Copy(io.Discard, c)
	})
	proxy, _ := startProxy(t, []policy.NetRule{{Host: "127.0.0.1", Port: u16(port), PathPrefix: new("/up"), Allow: true}}, nil)
	c, _ := net.Dial("tcp", proxy)
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, "POST http://127.0.0.1:"+strconv.Itoa(port)+"/up HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nGET http://127.0.0.1:"+strconv.Itoa(port)+"/admin HTTP/1.1\r\nHost: x\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 413 || !resp.Close {
		t.Fatalf("early response: %v %v", resp, err)
	}
	if _, err := http.ReadResponse(br, nil); err == nil {
		t.Error("a second response on a connection whose body was cut short")
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(paths, " ") != "/up" {
		t.Errorf("origin saw %v", paths)
	}
}

// Clients that open a connection per request share pooled upstream
// connections, as they did through net/http's Transport; each request
// is still decided on its own, and Close closes the pool.
func TestHTTPUpstreamPool(t *testing.T) {
	checkNoLeak(t)
	port, conns := countingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "path="+r.URL.Path)
	})
	proxy, s := startProxy(t, []policy.NetRule{{Host: "127.0.0.1", Port: u16(port), PathPrefix: new("/ok"), Allow: true}}, nil)
	for i, tc := range []struct {
		path string
		code int
	}{{"/ok/1", 200}, {"/no", 403}, {"/ok/2", 200}, {"/ok/3", 200}} {
		resp, body := proxyGet(t, proxy, "http://127.0.0.1:"+strconv.Itoa(port)+tc.path)
		if resp.StatusCode != tc.code {
			t.Errorf("request %d %s: %d %q", i, tc.path, resp.StatusCode, body)
		}
		// The proxy pools after the client has its answer.
		if tc.code == 200 {
			waitFor(t, "the upstream connection in the pool", func() bool {
				s.mu.Lock()
				defer s.mu.Unlock()
				return s.nIdle == 1
			})
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("origin saw %d connections for 3 forwarded requests on 4 client connections, want 1", n)
	}
	s.mu.Lock()
	pooled := s.nIdle
	s.mu.Unlock()
	if pooled != 1 {
		t.Errorf("%d pooled connections, want 1", pooled)
	}
}

// A response that takes longer than HeaderTimeout to stream is not cut
// by it: the head deadline ends with the head. The head is read before
// the deadline can matter (preloaded), and the origin sends the rest of
// its answer only once the deadline, set no later than the origin got
// the request, has certainly passed.
func TestHTTPSlowResponse(t *testing.T) {
	checkNoLeak(t)
	const headerTimeout = 50 * time.Millisecond
	port, _ := rawOrigin(t, func(c net.Conn, br *bufio.Reader) {
		if _, err := http.ReadRequest(br); err != nil {
			return
		}
		passed := time.After(headerTimeout)
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nabc")
		<-passed
		io.WriteString(c, "def")
	})
	l := newEventListener(t, true)
	startListening(t, []policy.NetRule{{Host: "127.0.0.1", Port: u16(port), Allow: true}}, Config{HeaderTimeout: headerTimeout}, l)
	if resp, body := proxyGet(t, l.Addr().String(), "http://127.0.0.1:"+strconv.Itoa(port)+"/"); resp.StatusCode != 200 || body != "abcdef" {
		t.Errorf("%d %q", resp.StatusCode, body)
	}
}

// The race behind the pool losing connections, made deterministic: the
// client reads its whole response and closes at once, and the proxy's
// watch on the client sees the close before relay is done with the
// response. The client got everything; the upstream connection is clean
// and must be pooled, not closed as if the client had given up.
func TestHTTPUpstreamPooledWhenClientClosesAtOnce(t *testing.T) {
	checkNoLeak(t)
	port, conns := countingOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "path="+r.URL.Path)
	})
	c, err := policy.NewChecker(t.TempDir(), &policy.AccessPolicy{Net: []policy.NetRule{{Host: "127.0.0.1", Port: u16(port), Allow: true}}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Decide: c.CheckNetEndpoint, HeaderTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hl := &holdListener{Listener: tl, accepted: make(chan *holdConn, 1)}
	done := make(chan error, 1)
	go func() { done <- s.Serve(hl) }()
	t.Cleanup(func() { s.Close(); <-done })

	resp, body := proxyGet(t, tl.Addr().String(), "http://127.0.0.1:"+strconv.Itoa(port)+"/x")
	if resp.StatusCode != 200 || body != "path=/x" {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
	hc := waitChan(t, "the proxy to accept", hl.accepted)
	// The proxy closes its client connection once it is done with it,
	// after giving the upstream to the pool.
	waitChan(t, "the proxy to close the client connection", hc.closed)
	s.mu.Lock()
	pooled := s.nIdle
	s.mu.Unlock()
	if pooled != 1 {
		t.Errorf("%d pooled upstream connections after a complete exchange, want 1", pooled)
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("origin saw %d connections, want 1", n)
	}
}

// holdListener hands Serve holdConns.
type holdListener struct {
	net.Listener
	accepted chan *holdConn
}

func (l *holdListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	hc := &holdConn{Conn: c, readFailed: make(chan struct{}), closed: make(chan struct{})}
	l.accepted <- hc
	return hc, nil
}

// holdConn returns from each Write only once a Read on it has failed:
// the client has read what was written and closed, and the proxy's read
// of the client has seen it, before the writer goes on.
type holdConn struct {
	net.Conn
	failOnce, closeOnce sync.Once
	readFailed, closed  chan struct{}
}

func (c *holdConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if err != nil {
		c.failOnce.Do(func() { close(c.readFailed) })
	}
	return n, err
}

func (c *holdConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	select {
	case <-c.readFailed:
	case <-time.After(waitBound):
	}
	return n, err
}

func (c *holdConn) Close() error {
	err := c.Conn.Close()
	c.closeOnce.Do(func() { close(c.closed) })
	return err
}

func (c *holdConn) CloseWrite() error { return c.Conn.(*net.TCPConn).CloseWrite() }
