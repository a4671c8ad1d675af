package netproxy

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httputil"
	"net/textproto"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/net/http/httpguts"
)

// netHTTPRequest reads a request head the way http.Server does:
// http.ReadRequest and then the server's own checks (HTTP/1.x only, a
// Host header on HTTP/1.1 except for CONNECT, a valid Host, valid field
// names and values). It is the oracle of FuzzRequestHeadDifferential.
func netHTTPRequest(in []byte) (*http.Request, error) {
	req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(in)))
	if err != nil {
		return nil, err
	}
	if req.ProtoMajor != 1 {
		return nil, errors.New("unsupported protocol version")
	}
	// ReadRequest drops the Host field; the server checks it before.
	tp := textproto.NewReader(bufio.NewReader(bytes.NewReader(in)))
	tp.ReadLine()
	raw, err := tp.ReadMIMEHeader()
	if err != nil {
		return nil, err
	}
	hosts, haveHost := raw["Host"]
	if req.ProtoAtLeast(1, 1) && (!haveHost || len(hosts) == 0) && req.Method != "CONNECT" {
		return nil, errors.New("missing required Host header")
	}
	if len(hosts) == 1 && !httpguts.ValidHostHeader(hosts[0]) {
		return nil, errors.New("malformed Host header")
	}
	for k, vv := range req.Header {
		if !httpguts.ValidHeaderFieldName(k) {
			return nil, errors.New("invalid header name")
		}
		for _, v := range vv {
			if !httpguts.ValidHeaderFieldValue(v) {
				return nil, errors.New("invalid header value")
			}
		}
	}
	return req, nil
}

var headSeeds = []string{
	"GET http://example.com/a?b=c HTTP/1.1\r\nHost: example.com\r\nUser-Agent: x\r\n\r\n",
	"GET http://example.com:8080/ HTTP/1.0\r\n\r\n",
	"POST http://a.test/x HTTP/1.1\r\nHost: a.test\r\nContent-Length: 5\r\n\r\nhello",
	"POST http://a.test/x HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
	"POST http://a.test/x HTTP/1.1\r\nHost: a.test\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n",
	"POST http://a.test/x HTTP/1.1\r\nHost: a.test\r\nContent-Length: 4\r\nContent-Length: 4\r\n\r\n",
	"POST http://a.test/x HTTP/1.1\r\nHost: a.test\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\n",
	"POST http://a.test/x HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
	"POST http://a.test/x HTTP/1.0\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
	"GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nX-A: 1\r\n folded\r\n\r\n",
	"GET http://a.test/ HTTP/1.1\nHost: a.test\n\n",
	"GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nX-A: a\rb\r\n\r\n",
	"GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nHost: b.test\r\n\r\n",
	"GET http://a.test/ HTTP/1.1\r\n\r\n",
	"GET http://a.test/ HTTP/1.2\r\nHost: a\r\n\r\n",
	"GET http://a.test/ HTTP/2.0\r\nHost: a\r\n\r\n",
	"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
	"CONNECT a.test:443 HTTP/1.1\r\n\r\n",
	"CONNECT /x HTTP/1.1\r\nHost: a.test:443\r\n\r\n",
	"CONNECT [::1]:443 HTTP/1.1\r\nHost: [::1]:443\r\n\r\n",
	"GET http://user@a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n",
	"GET http://a.test/\xc3\xa9 HTTP/1.1\r\nHost: a.test\r\n\r\n",
	"GET http://a.test/#frag HTTP/1.1\r\nHost: a.test\r\n\r\n",
	"GET /origin HTTP/1.1\r\nHost: a.test\r\nConnection: close, X-Foo\r\nX-Foo: 1\r\nPragma: no-cache\r\n\r\n",
	"GET * HTTP/1.1\r\nHost: a\r\n\r\n",
	"GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nName : v\r\n\r\n",
	"GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n: v\r\n\r\n",
	"GET http://a.test/ HTTP/1.1\r\nHost: a\x00.test\r\n\r\n",
	"GET  http://a.test/ HTTP/1.1\r\nHost: a\r\n\r\n",
	"\r\nGET http://a.test/ HTTP/1.1\r\nHost: a\r\n\r\n",
	"G\x7fT http://a.test/ HTTP/1.1\r\nHost: a\r\n\r\n",
	"GET http://a.test/ HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\n",
	"GET http://a.test/ HTTP/1.1\r\nHost: a\r\nContent-Length: 0005\r\n\r\n",
	"GET http://a.test/ HTTP/1.1\r\nHost: a\r\nContent-Length:\r\n\r\n",
	"GET http://a.test/ HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked \r\n\r\n",
	"GET http://a.test/ HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
	"GET http://a.test/ HTTP/1.1\r\nHost: a\r\nX: \xff\xfe\r\n\r\n",
}

// FuzzRequestHeadDifferential holds the proxy's request-head parser to
// net/http's: whatever the proxy accepts, net/http accepts with the same
// method, target, URL, Host, fields, framing and close flag; whatever
// net/http refuses, the proxy refuses; and where the proxy refuses what
// net/http accepts, the refusal is one of its documented strict cases
// (headError.strict).
func FuzzRequestHeadDifferential(f *testing.F) {
	for _, s := range headSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		const limit = 1 << 20
		h, err := readRequestHead(bufio.NewReader(bytes.NewReader(in)), limit)
		req, herr := netHTTPRequest(in)
		if err != nil {
			var he *headError
			isHE := errors.As(err, &he)
			if isHE && he.status == 431 {
				t.Fatalf("431 under a 1 MiB limit for %d bytes", len(in))
			}
			if herr == nil && !(isHE && he.strict) {
				t.Fatalf("refused %q (%v), which net/http accepts, and not as a strict case", in, err)
			}
			return
		}
		if herr != nil {
			t.Fatalf("accepted %q, which net/http refuses: %v", in, herr)
		}
		proto := "HTTP/1.0"
		if h.minor == 1 {
			proto = "HTTP/1.1"
		}
		if h.method != req.Method || h.target != req.RequestURI || proto != req.Proto || h.url.String() != req.URL.String() {
			t.Fatalf("%q: parsed %s %s %s (URL %s), net/http %s %s %s (URL %s)", in, h.method, h.target, proto, h.url, req.Method, req.RequestURI, req.Proto, req.URL)
		}
		host := h.host
		if h.url.Host != "" {
			host = h.url.Host
		}
		if host != req.Host {
			t.Fatalf("%q: host %q, net/http %q", in, host, req.Host)
		}
		ours := http.Header{}
		for _, fl := range h.fields {
			if strings.EqualFold(fl.name, "Host") {
				continue // checked above
			}
			k := textproto.CanonicalMIMEHeaderKey(fl.name)
			ours[k] = append(ours[k], fl.value)
		}
		theirs := req.Header.Clone()
		for _, k := range []string{"Content-Length", "Transfer-Encoding"} {
			delete(ours, k)
			delete(theirs, k)
		}
		if _, ok := ours["Cache-Control"]; !ok && theirs.Get("Pragma") == "no-cache" {
			delete(theirs, "Cache-Control") // net/http adds it for Pragma: no-cache
		}
		if len(ours) != 0 || len(theirs) != 0 {
			if !reflect.DeepEqual(ours, theirs) {
				t.Fatalf("%q: fields %v, net/http %v", in, ours, theirs)
			}
		}
		chunked := len(req.TransferEncoding) == 1 && req.TransferEncoding[0] == "chunked"
		length := max(h.contentLength, 0)
		if h.chunked {
			length = -1
		}
		if h.chunked != chunked || length != req.ContentLength {
			t.Fatalf("%q: framing chunked=%v length=%d, net/http %v %d", in, h.chunked, length, req.TransferEncoding, req.ContentLength)
		}
		if h.minor == 1 && h.close != req.Close {
			t.Fatalf("%q: close=%v, net/http %v", in, h.close, req.Close)
		}
	})
}

// The parser's refusals, each with the status the client gets.
func TestReadRequestHead(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		status   int // 0: accepted
		strict   bool
	}{
		{"absolute form", "GET http://a.test/x HTTP/1.1\r\nHost: a.test\r\n\r\n", 0, false},
		{"HTTP/1.0 without Host", "GET http://a.test/x HTTP/1.0\r\n\r\n", 0, false},
		{"CONNECT without Host", "CONNECT a.test:443 HTTP/1.1\r\n\r\n", 0, false},
		{"chunked", "POST http://a.test/ HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n", 0, false},
		{"bare LF", "GET http://a.test/x HTTP/1.1\nHost: a.test\n\n", 400, true},
		{"bare CR in a value", "GET http://a.test/x HTTP/1.1\r\nHost: a.test\r\nX: a\rb\r\n\r\n", 400, false},
		{"obs-fold", "GET http://a.test/x HTTP/1.1\r\nHost: a.test\r\nX: a\r\n b\r\n\r\n", 400, true},
		{"CL and TE", "POST http://a.test/ HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400, true},
		{"two equal CLs", "POST http://a.test/ HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\n", 400, true},
		{"two CLs", "POST http://a.test/ HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", 400, false},
		{"signed CL", "POST http://a.test/ HTTP/1.1\r\nHost: a\r\nContent-Length: +3\r\n\r\n", 400, false},
		{"TE on HTTP/1.0", "POST http://a.test/ HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400, true},
		{"TE gzip", "POST http://a.test/ HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", 501, false},
		{"TE twice", "POST http://a.test/ HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", 501, false},
		{"HTTP/1.2", "GET http://a.test/ HTTP/1.2\r\nHost: a\r\n\r\n", 505, true},
		{"HTTP/2.0", "GET http://a.test/ HTTP/2.0\r\nHost: a\r\n\r\n", 505, false},
		{"garbage version", "GET http://a.test/ HTTX/1.1\r\nHost: a\r\n\r\n", 400, false},
		{"two Hosts", "GET http://a.test/ HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, false},
		{"no Host", "GET http://a.test/ HTTP/1.1\r\n\r\n", 400, false},
		{"bad Host", "GET http://a.test/ HTTP/1.1\r\nHost: a b\r\n\r\n", 400, false},
		{"space before colon", "GET http://a.test/ HTTP/1.1\r\nHost: a\r\nX : b\r\n\r\n", 400, false},
		{"non-ASCII target", "GET http://a.test/\xc3\xa9 HTTP/1.1\r\nHost: a\r\n\r\n", 400, true},
		{"fragment", "GET http://a.test/#x HTTP/1.1\r\nHost: a\r\n\r\n", 400, true},
		{"control in target", "GET http://a.test/\x01 HTTP/1.1\r\nHost: a\r\n\r\n", 400, false},
		{"bad method", "G(T http://a.test/ HTTP/1.1\r\nHost: a\r\n\r\n", 400, false},
		{"bad escape", "GET http://a.test/%zz HTTP/1.1\r\nHost: a\r\n\r\n", 400, false},
		{"too large", "GET http://a.test/ HTTP/1.1\r\nHost: a\r\nX: " + strings.Repeat("a", 300) + "\r\n\r\n", 431, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := readRequestHead(bufio.NewReaderSize(strings.NewReader(tc.in), 16), 256)
			var he *headError
			switch {
			case tc.status == 0 && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.status == 0:
				if h.method == "" || h.url == nil {
					t.Fatalf("parsed %+v", h)
				}
			case !errors.As(err, &he):
				t.Fatalf("got %v, %v; want a %d refusal", h, err, tc.status)
			case he.status != tc.status || he.strict != tc.strict:
				t.Errorf("refusal %d strict=%v (%v), want %d strict=%v", he.status, he.strict, he, tc.status, tc.strict)
			}
		})
	}
	// A connection that ends, before or inside a head, is not answered.
	for _, in := range []string{"", "GET http://a.test/ HTTP/1.1\r\nHost: a\r\n"} {
		if _, err := readRequestHead(bufio.NewReader(strings.NewReader(in)), 256); err != io.EOF && err != errNoRequest {
			t.Errorf("%q: %v", in, err)
		}
	}
}

// FuzzChunkedBody holds the chunked-body decoder to net/http's: a body
// the proxy accepts decodes to the same bytes with
// httputil.NewChunkedReader, and what the proxy writes upstream
// (re-chunked) decodes to those bytes again.
func FuzzChunkedBody(f *testing.F) {
	for _, s := range []string{
		"5\r\nhello\r\n0\r\n\r\n",
		"3;ext=1\r\nhel\r\n2\r\nlo\r\n0\r\nX-T: 1\r\n\r\n",
		"0\r\n\r\n",
		"a \t; x\r\n0123456789\r\n0\r\n\r\n",
		"a;x\r\n0123456789\r\n0\r\n\r\n",
		"5\nhello\n0\n\n",
		"+5\r\nhello\r\n0\r\n\r\n",
		"ffffffffffffffff\r\n",
		"5\r\nhelloXX0\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		bw := bufio.NewWriter(&out)
		err := copyBody(bw, bufio.NewReader(bytes.NewReader(in)), bodyFraming{chunked: true}, true, true, 1<<10, nil)
		if err != nil {
			return
		}
		want, herr := io.ReadAll(httputil.NewChunkedReader(bytes.NewReader(in)))
		if herr != nil {
			t.Fatalf("accepted %q, which net/http's chunked reader refuses: %v", in, herr)
		}
		got, err := io.ReadAll(httputil.NewChunkedReader(&out))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%q: re-chunked %q decodes to %q (%v), net/http read %q", in, out.Bytes(), got, err, want)
		}
	})
}
