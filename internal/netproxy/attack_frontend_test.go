package netproxy

// Attacks on the proxy's own HTTP/1.1 front end (head.go, body.go,
// http.go, upstream.go): a tool that controls every byte it sends, and
// sometimes the allowed upstream's answers too.

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jp-policy/jp-policy/policy"
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
// read it as its own answer.
func unsolicitedOrigin(t *testing.T) int {
	t.Helper()
	port, _ := rawOrigin(t, func(c net.Conn, br *bufio.Reader) {
		for i := 0; ; i++ {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			io.Copy(io.Discard, req.Body)
			body := "path=" + req.URL.Path
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
			if i == 0 {
				time.Sleep(50 * time.Millisecond)
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nstale!")
			}
		}
	})
	return port
}

// Bytes an upstream sends while its connection is idle (between
// exchanges) belong to no request: a reused connection that has them
// must not hand them to the next request, from the same client
// connection or from another.
func TestAttackUnsolicitedResponseOnIdleUpstream(t *testing.T) {
	checkNoLeak(t)
	t.Run("pooled, next client", func(t *testing.T) {
		port := unsolicitedOrigin(t)
		base := "http://127.0.0.1:" + strconv.Itoa(port)
		proxy, _ := startProxy(t, []policy.NetRule{{Host: "127.0.0.1", Port: u16(port), Allow: true}}, nil)
		if resp, body := proxyGet(t, proxy, base+"/a"); resp.StatusCode != 200 || body != "path=/a" {
			t.Fatalf("control: %d %q", resp.StatusCode, body)
		}
		time.Sleep(200 * time.Millisecond)
		if resp, body := proxyGet(t, proxy, base+"/b"); resp.StatusCode != 200 || body != "path=/b" {
			t.Errorf("second client got %d %q for /b", resp.StatusCode, body)
		}
	})
	t.Run("held, same client", func(t *testing.T) {
		port := unsolicitedOrigin(t)
		base := "http://127.0.0.1:" + strconv.Itoa(port)
		proxy, _ := startProxy(t, []policy.NetRule{{Host: "127.0.0.1", Port: u16(port), Allow: true}}, nil)
		c, err := net.Dial("tcp", proxy)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		br := bufio.NewReader(c)
		if resp, body := exchange(t, c, br, "GET "+base+"/a HTTP/1.1\r\nHost: x\r\n\r\n", "GET"); resp.StatusCode != 200 || body != "path=/a" {
			t.Fatalf("control: %d %q", resp.StatusCode, body)
		}
		time.Sleep(200 * time.Millisecond)
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
	port, _ := rawOrigin(t, func(c net.Conn, br *bufio.Reader) {
		if _, err := http.ReadRequest(br); err != nil {
			return
		}
		c.SetDeadline(time.Time{})
		select { // never answers while the test runs
		case <-release:
		case <-time.After(10 * time.Second):
		}
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
		time.Sleep(20 * time.Millisecond)
		c.Close()
	}
	// Every client gave up: the proxy must have let go of them all.
	deadline := time.Now().Add(2 * time.Second)
	for len(s.slots) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := len(s.slots); n > 0 {
		t.Errorf("%d client slots still held after every client closed", n)
	}
	// Control: a new client still gets an answer (a 403 needs no upstream).
	resp, body := proxyGet(t, proxy, "http://127.0.0.1:1/x")
	if resp.StatusCode != 403 {
		t.Errorf("new client after abandoned requests: %d %q", resp.StatusCode, body)
	}
}
