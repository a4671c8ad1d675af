package netproxy

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// fuzzUpstream is a real loopback HTTP/1.1 upstream that parses what
// the proxy sends with net/http's own request reader (an independent
// parser, as the server behind the proxy would be) and records every
// request it reads. The first request it reads after arm answers with
// the fuzzer's raw bytes; every other one with a small valid response.
type fuzzUpstream struct {
	mu   sync.Mutex
	seen []string // "Host RequestURI" of every request read
	raw  []byte   // the next fuzzed answer (nil when used)
	n    atomic.Int64
}

var ok = []byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")

func (u *fuzzUpstream) serve(c net.Conn) {
	br := bufio.NewReader(c)
	for {
		c.SetDeadline(time.Now().Add(5 * time.Second))
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		u.mu.Lock()
		u.seen = append(u.seen, req.Host+" "+req.RequestURI)
		raw := u.raw
		u.raw = nil
		u.mu.Unlock()
		u.n.Add(1)
		if _, err := io.Copy(io.Discard, req.Body); err != nil {
			return
		}
		if raw != nil {
			// An arbitrary answer may run to the end of the
			// connection: end it.
			c.Write(raw)
			return
		}
		if _, err := c.Write(ok); err != nil {
			return
		}
	}
}

// allowCounter counts the allowed decisions in the proxy's log.
type allowCounter struct{ n atomic.Int64 }

func (a *allowCounter) Write(p []byte) (int, error) {
	a.n.Add(int64(bytes.Count(p, []byte(`"allowed":true`))))
	return len(p), nil
}

// FuzzForward drives the whole plain-HTTP path with a fuzzed client
// byte stream and a fuzzed upstream answer, through a real upstream
// (kept-alive and pooled connections included). Invariants: nothing
// panics; the client is answered or closed in time, in HTTP; the only
// address dialled is the allowed endpoint; and the upstream, reading
// with net/http's parser, never sees a request the proxy did not decide:
// at most as many requests as allowed decisions, each with the decided
// Host and a path under the granted prefix (no smuggling, no desync
// between the proxy's framing and the upstream's).
func FuzzForward(f *testing.F) {
	for _, s := range [][2]string{
		{"GET http://127.0.0.1:8080/api/x HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc"},
		{"GET http://127.0.0.1:8080/api/x HTTP/1.1\r\nHost: x\r\n\r\nGET http://127.0.0.1:8080/api/y HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"},
		{"POST http://127.0.0.1:8080/api/x HTTP/1.1\r\nHost: x\r\nContent-Length: 46\r\n\r\nGET /secret HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"},
		{"POST http://127.0.0.1:8080/api/x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-T: 1\r\n\r\nGET http://127.0.0.1:8080/secret HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nz"},
		{"HEAD http://127.0.0.1:8080/api/x HTTP/1.1\r\nHost: x\r\n\r\nGET http://127.0.0.1:8080/api/y HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nstale"},
		{"PUT http://127.0.0.1:8080/api/x HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nhi", "HTTP/1.1 204 No Content\r\nContent-Length: 7\r\n\r\n"},
		{"GET http://127.0.0.1:8080/api/x HTTP/1.0\r\n\r\n", "HTTP/1.0 200 OK\r\n\r\nto the end"},
		{"GET http://127.0.0.1:8080//api/x HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc"},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.Fatal(err)
	}
	up := &fuzzUpstream{}
	serveConns(f, l, up.serve)
	c, err := policy.NewChecker(f.TempDir(), &policy.AccessPolicy{Net: []policy.NetRule{
		{Host: "127.0.0.1", Port: u16(8080), Scheme: new("http"), PathPrefix: new("/api"), Allow: true},
	}})
	if err != nil {
		f.Fatal(err)
	}
	d := &redirectDialer{target: l.Addr().String()}
	allowed := &allowCounter{}
	s, err := New(Config{Decide: c.CheckNetEndpoint, Dial: d, Resolver: &fakeResolver{}, Log: allowed,
		HeaderTimeout: 200 * time.Millisecond, IdleTimeout: 50 * time.Millisecond})
	if err != nil {
		f.Fatal(err)
	}
	pl := newConnListener(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1})
	go s.Serve(pl)
	f.Cleanup(func() { s.Close() })
	f.Fuzz(func(t *testing.T, req, resp []byte) {
		up.mu.Lock()
		up.raw = resp
		up.mu.Unlock()
		client, server := net.Pipe()
		pl.deliver(server)
		defer client.Close()
		// A request whose body is not all sent waits for the rest, as
		// it may: the client gives up after a while and closes.
		client.SetDeadline(time.Now().Add(500 * time.Millisecond))
		go func() { client.Write(req) }()
		out, err := io.ReadAll(client)
		if err != nil && !isClosedErr(err) && !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("reading the answer: %v (got %q)", err, out)
		}
		client.Close()
		if len(out) > 0 && req[0] != socksVersion && !bytes.HasPrefix(out, []byte("HTTP/1.1 ")) {
			t.Fatalf("answer to %q is not HTTP/1.1: %q", req, out)
		}
		// Every request the upstream read was decided: no more of them
		// than allowed decisions (both only grow; a decision is logged
		// before its request is sent), each for the decided endpoint.
		if n, a := up.n.Load(), allowed.n.Load(); n > a {
			up.mu.Lock()
			t.Fatalf("upstream read %d requests, proxy allowed %d: %q", n, a, up.seen)
		}
		up.mu.Lock()
		for _, r := range up.seen {
			host, uri, _ := strings.Cut(r, " ")
			u, err := url.ParseRequestURI(uri)
			if host != "127.0.0.1:8080" || err != nil || !strings.HasPrefix(uri, "/") || strings.HasPrefix(uri, "//") ||
				!(path.Clean(u.Path) == "/api" || strings.HasPrefix(path.Clean(u.Path), "/api/")) {
				up.mu.Unlock()
				t.Fatalf("upstream read an undecided request %q (client sent %q)", r, req)
			}
		}
		up.seen = up.seen[:0]
		up.mu.Unlock()
		d.mu.Lock()
		for _, a := range d.asked {
			if a != "127.0.0.1:8080" {
				d.mu.Unlock()
				t.Fatalf("dialled %q", a)
			}
		}
		d.asked = d.asked[:0]
		d.mu.Unlock()
	})
}
