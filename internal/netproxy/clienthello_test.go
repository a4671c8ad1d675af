package netproxy

import (
	"bytes"
	"crypto/tls"
	"net"
	"testing"
)

// clientHello is the first flight crypto/tls's client sends for sni.
func clientHello(tb testing.TB, sni string) []byte {
	tb.Helper()
	a, b := net.Pipe()
	got := make(chan []byte, 1)
	go func() {
		buf := make([]byte, 64<<10)
		n, _ := b.Read(buf)
		got <- buf[:n]
		b.Close()
	}()
	c := tls.Client(a, &tls.Config{ServerName: sni, InsecureSkipVerify: true})
	go c.Handshake()
	out := <-got
	a.Close()
	return out
}

// fragment splits a single-record flight into records of at most n
// bytes of payload each, as a client may.
func fragment(rec []byte, n int) []byte {
	var out []byte
	body := rec[5:]
	for len(body) > 0 {
		k := min(n, len(body))
		out = append(out, rec[0], rec[1], rec[2], byte(k>>8), byte(k))
		out = append(out, body[:k]...)
		body = body[k:]
	}
	return out
}

func TestReadClientHello(t *testing.T) {
	for _, sni := range []string{"api.example.com", "", "a.b"} {
		hello := clientHello(t, sni)
		for _, in := range [][]byte{hello, fragment(hello, 7), fragment(hello, 100)} {
			raw, got, err := readClientHello(bytes.NewReader(append(in, "after"...)))
			if err != nil || got != sni || !bytes.Equal(raw, in) {
				t.Errorf("sni %q: got %q, %v; raw %d of %d bytes", sni, got, err, len(raw), len(in))
			}
		}
	}
	// An IP literal is sent without SNI.
	if _, got, err := readClientHello(bytes.NewReader(clientHello(t, "127.0.0.1"))); err != nil || got != "" {
		t.Errorf("IP literal: %q, %v", got, err)
	}
	for _, bad := range [][]byte{
		[]byte("GET / HTTP/1.1\r\n\r\n"),
		{0x16, 3, 1, 0, 4, 2, 0, 0, 0}, // a ServerHello
		{0x16, 3, 1, 0, 0},             // an empty record
		{0x16, 3, 1, 0xff, 0xff},       // over the record limit
	} {
		if _, sni, err := readClientHello(bytes.NewReader(bad)); err == nil {
			t.Errorf("%q: took it, sni %q", bad, sni)
		}
	}
}

// FuzzReadClientHello: never a panic; what it read is a prefix of the
// input; a server name it returns is bytes of the records it read.
func FuzzReadClientHello(f *testing.F) {
	f.Add(clientHello(f, "api.example.com"))
	f.Add(fragment(clientHello(f, "x.example"), 9))
	f.Add([]byte{0x16, 3, 1, 0, 4, 1, 0, 0, 0})
	f.Fuzz(func(t *testing.T, in []byte) {
		raw, sni, err := readClientHello(bytes.NewReader(in))
		if !bytes.HasPrefix(in, raw) {
			t.Fatalf("read %d bytes that are not the input's prefix", len(raw))
		}
		var payload []byte // the records' payloads, joined
		for r := raw; len(r) >= 5; {
			n := min(int(r[3])<<8|int(r[4]), len(r)-5)
			payload = append(payload, r[5:5+n]...)
			r = r[5+n:]
		}
		if err == nil && sni != "" && !bytes.Contains(payload, []byte(sni)) {
			t.Fatalf("server name %q not in the records read", sni)
		}
	})
}
