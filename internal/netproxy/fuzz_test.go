package netproxy

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// recordDialer fails every dial, recording the address.
type recordDialer struct {
	mu    sync.Mutex
	addrs []string
}

func (d *recordDialer) DialContext(_ context.Context, _, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.addrs = append(d.addrs, addr)
	d.mu.Unlock()
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: io.ErrUnexpectedEOF}
}

// FuzzServe feeds arbitrary bytes to the one-port sniffer (HTTP, CONNECT
// and SOCKS5 parsers). Invariants: nothing panics, every connection is
// answered or closed within the header timeout, and the only address
// ever dialled is the canonical host:port of an allowed decision (here
// exactly one endpoint is allowed).
func FuzzServe(f *testing.F) {
	for _, s := range []string{
		"GET http://127.0.0.1:8080/api/x HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET http://0x7f.1:8080/api HTTP/1.1\r\nHost: x\r\n\r\n",
		"CONNECT 127.0.0.1:8080 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n",
		"CONNECT [::1]:8080 HTTP/1.1\r\n\r\n",
		"\x05\x01\x00\x05\x01\x00\x01\x7f\x00\x00\x01\x1f\x90",
		"\x05\x01\x00\x05\x01\x00\x03\x0a2130706433\x1f\x90",
		"\x05\x01\x00\x05\x01\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x1f\x90",
		"\x05\x01\x00\x05\x03\x00\x01\x7f\x00\x00\x01\x1f\x90",
		"\x05\x00", "\x05\xff", "\x04\x01\x00\x50", "", "GET / HTTP/1.1\r\n\r\n", "\x16\x03\x01\x02\x00",
	} {
		f.Add([]byte(s))
	}
	c, err := policy.NewChecker(f.TempDir(), &policy.AccessPolicy{Net: []policy.NetRule{
		{Host: "127.0.0.1", Port: u16(8080), Allow: true},
	}})
	if err != nil {
		f.Fatal(err)
	}
	d := &recordDialer{}
	s, err := New(Config{Decide: c.CheckNetEndpoint, Dial: d, Resolver: &fakeResolver{}, Log: io.Discard, HeaderTimeout: 200 * time.Millisecond, IdleTimeout: 200 * time.Millisecond})
	if err != nil {
		f.Fatal(err)
	}
	// The server's own in-memory listener serves here as the outer one.
	l := newConnListener(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1})
	go s.Serve(l)
	f.Cleanup(func() { s.Close() })
	f.Fuzz(func(t *testing.T, in []byte) {
		client, server := net.Pipe()
		l.deliver(server)
		defer client.Close()
		client.SetDeadline(time.Now().Add(3 * time.Second))
		go func() { client.Write(in) }()
		out, err := io.ReadAll(client)
		if err != nil && !isClosedErr(err) {
			t.Fatalf("connection neither answered nor closed: %v (got %q)", err, out)
		}
		if len(out) > 0 && in[0] != socksVersion {
			if _, err := readHTTPResponse(out); err != nil {
				t.Fatalf("answer to %q is not HTTP: %q", in, out)
			}
		}
		d.mu.Lock()
		defer d.mu.Unlock()
		for _, a := range d.addrs {
			if a != "127.0.0.1:"+strconv.Itoa(8080) {
				t.Fatalf("dialled %q", a)
			}
		}
		d.addrs = d.addrs[:0]
	})
}

func isClosedErr(err error) bool { return err == io.ErrClosedPipe }

func readHTTPResponse(b []byte) (int, error) {
	r := bufio.NewReader(bytes.NewReader(b))
	line, err := r.ReadString('\n')
	if err != nil || len(line) < 12 || line[:5] != "HTTP/" {
		return 0, io.ErrUnexpectedEOF
	}
	return strconv.Atoi(line[9:12])
}

// FuzzSOCKSRequest: the request parser never panics and a parsed host is
// the literal of its address type.
func FuzzSOCKSRequest(f *testing.F) {
	f.Add([]byte("\x05\x01\x00\x01\x7f\x00\x00\x01\x00\x50"))
	f.Add([]byte("\x05\x01\x00\x03\x00\x00\x50"))
	f.Add([]byte("\x05\x01\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x50"))
	f.Fuzz(func(t *testing.T, in []byte) {
		req, err := readSocksRequest(bufio.NewReader(bytes.NewReader(in)))
		if err != nil {
			return
		}
		switch req.atyp {
		case socksAtypIPv4, socksAtypIPv6:
			if net.ParseIP(req.host) == nil {
				t.Fatalf("host %q is not an IP", req.host)
			}
		case socksAtypDomain:
			if len(req.host) != int(in[4]) {
				t.Fatalf("domain length %d, header says %d", len(req.host), in[4])
			}
		default:
			t.Fatalf("parsed unknown address type %d", req.atyp)
		}
		if req.port < 0 || req.port > 65535 {
			t.Fatalf("port %d", req.port)
		}
	})
}
