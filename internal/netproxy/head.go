package netproxy

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// The proxy's own HTTP/1.1 message reader (RFC 9112). It is stricter
// than net/http where net/http is lenient in ways a proxy in front of
// other parsers should not be (docs/netproxy.md, "The HTTP front end"):
// every difference is a refusal marked strict in headError, and
// FuzzRequestHeadDifferential holds the parser to net/http's
// ReadRequest on everything else.

// field is one header line as received (name case kept, value with the
// surrounding whitespace removed).
type field struct{ name, value string }

// requestHead is a parsed request line and header section.
type requestHead struct {
	method, target string
	minor          int      // HTTP/1.minor: 0 or 1
	url            *url.URL // target parsed as net/http parses it
	fields         []field  // every header line, Host included, in order
	host           string   // the Host header ("" when absent)
	hasHost        bool
	contentLength  int64 // -1: no Content-Length
	chunked        bool
	close          bool     // the client will not send another request
	connTokens     []string // Connection's options, lower case
	expect         string   // the Expect header, "" when absent
	upgrade        bool     // an Upgrade header is present
}

// hasBody reports whether a body follows the head.
func (h *requestHead) hasBody() bool { return h.chunked || h.contentLength > 0 }

// headError is a head the proxy refuses, with the status to answer.
// strict marks the refusals net/http would have accepted.
type headError struct {
	status int
	msg    string
	strict bool
}

func (e *headError) Error() string { return e.msg }

func badHead(msg string) error    { return &headError{status: 400, msg: msg} }
func strictHead(msg string) error { return &headError{status: 400, msg: msg, strict: true} }

// errHeadTooLarge is a head over the size limit (431 for a request).
var errHeadTooLarge = &headError{status: 431, msg: "request header too large"}

// errNoRequest is a connection that ended (or timed out) before a
// request started or in the middle of its head: nothing to answer.
var errNoRequest = errors.New("connection ended")

// readLine reads one line and returns it without its ending. budget is
// what is left of the head's size limit and is charged for the line. A
// request (crlf) must end every line in CRLF; a response may also use a
// bare LF, as net/http's client allows. A CR anywhere else is refused.
// io.EOF is returned only when the reader ends before the line's first
// byte.
func readLine(br *bufio.Reader, budget *int, crlf bool) ([]byte, error) {
	var long []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(frag) > *budget {
			return nil, errHeadTooLarge
		}
		*budget -= len(frag)
		if err == bufio.ErrBufferFull {
			long = append(long, frag...)
			continue
		}
		if err != nil {
			if err == io.EOF && len(long) == 0 && len(frag) == 0 {
				return nil, io.EOF
			}
			return nil, errNoRequest
		}
		line := frag
		if long != nil {
			line = append(long, frag...)
		}
		line = line[:len(line)-1]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		} else if crlf {
			return nil, strictHead("line ends in a bare LF; HTTP/1.1 lines end in CRLF")
		}
		if bytes.IndexByte(line, '\r') >= 0 {
			return nil, badHead("bare CR in a line")
		}
		return line, nil
	}
}

// readRequestHead reads a request line and header section of at most
// limit bytes and checks its framing. An error is a *headError to
// answer, or errNoRequest/io.EOF (close without an answer).
func readRequestHead(br *bufio.Reader, limit int) (*requestHead, error) {
	budget := limit
	line, err := readLine(br, &budget, true)
	if err != nil {
		return nil, err
	}
	h := &requestHead{contentLength: -1}
	if err := h.parseRequestLine(string(line)); err != nil {
		return nil, err
	}
	fields, err := readFields(br, &budget, true)
	if err != nil {
		return nil, err
	}
	h.fields = fields
	if err := h.interpret(); err != nil {
		return nil, err
	}
	return h, nil
}

// parseRequestLine parses "METHOD SP target SP HTTP/1.x".
func (h *requestHead) parseRequestLine(line string) error {
	method, rest, ok1 := strings.Cut(line, " ")
	target, proto, ok2 := strings.Cut(rest, " ")
	if !ok1 || !ok2 || method == "" || target == "" || strings.IndexByte(proto, ' ') >= 0 {
		return badHead("malformed request line " + strconv.Quote(line))
	}
	if !isToken(method) {
		return badHead("invalid method " + strconv.Quote(method))
	}
	switch proto {
	case "HTTP/1.1":
		h.minor = 1
	case "HTTP/1.0":
		h.minor = 0
	default:
		// net/http also takes HTTP/1.2 to 1.9 as HTTP/1.x.
		e := &headError{status: 505, msg: "unsupported protocol version " + strconv.Quote(proto)}
		if len(proto) == 8 && strings.HasPrefix(proto, "HTTP/1.") && proto[7] >= '0' && proto[7] <= '9' {
			e.strict = true
		} else if !validHTTPVersion(proto) {
			e.status = 400
		}
		return e
	}
	for i := 0; i < len(target); i++ {
		if c := target[i]; c <= ' ' || c >= 0x7f || c == '#' {
			// net/url refuses controls; bytes over 0x7f and '#' it
			// takes, but clients percent-encode them and a server could
			// read them differently from the path the policy decided.
			return &headError{status: 400, msg: "request target " + strconv.Quote(target) + " has a byte clients percent-encode", strict: c > ' ' && c != 0x7f}
		}
	}
	h.method, h.target = method, target
	raw := target
	authority := method == "CONNECT" && !strings.HasPrefix(target, "/")
	if authority {
		raw = "http://" + target
	}
	u, err := url.ParseRequestURI(raw)
	if err != nil {
		return badHead("request target " + strconv.Quote(target) + " is not a URI")
	}
	if authority {
		u.Scheme = ""
	}
	h.url = u
	return nil
}

// validHTTPVersion reports whether net/http would parse proto as a
// version ("HTTP/d.d"), so an unsupported one is 505 and garbage 400.
func validHTTPVersion(proto string) bool {
	return len(proto) == 8 && strings.HasPrefix(proto, "HTTP/") && isDigit(proto[5]) && proto[6] == '.' && isDigit(proto[7])
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// readFields reads header lines up to the empty line.
func readFields(br *bufio.Reader, budget *int, crlf bool) ([]field, error) {
	var fields []field
	for {
		line, err := readLine(br, budget, crlf)
		if err == io.EOF {
			return nil, errNoRequest
		}
		if err != nil {
			return nil, err
		}
		if len(line) == 0 {
			return fields, nil
		}
		if line[0] == ' ' || line[0] == '\t' {
			// obs-fold: net/http joins it to the previous line (and
			// refuses it on the first); folded values are read
			// differently by different servers.
			return nil, &headError{status: 400, msg: "folded header line (obs-fold)", strict: len(fields) > 0}
		}
		name, value, ok := strings.Cut(string(line), ":")
		if !ok || !isToken(name) {
			return nil, badHead("malformed header line " + strconv.Quote(string(line)))
		}
		value = strings.Trim(value, " \t")
		for i := 0; i < len(value); i++ {
			if !validValueByte(value[i]) {
				return nil, badHead("invalid byte in header " + strconv.Quote(name))
			}
		}
		fields = append(fields, field{name, value})
	}
}

// interpret checks Host and the framing, and reads the fields the proxy
// acts on.
func (h *requestHead) interpret() error {
	cls, tes, conn := framingFields(h.fields)
	h.connTokens = conn
	for _, f := range h.fields {
		switch {
		case strings.EqualFold(f.name, "Host"):
			if h.hasHost {
				return badHead("more than one Host header")
			}
			h.host, h.hasHost = f.value, true
		case strings.EqualFold(f.name, "Expect"):
			h.expect = f.value
		case strings.EqualFold(f.name, "Upgrade"):
			h.upgrade = true
		}
	}
	if h.minor == 1 && !h.hasHost && h.method != "CONNECT" {
		return badHead("missing required Host header")
	}
	if !validHost(h.host) {
		return badHead("malformed Host header")
	}
	switch len(cls) {
	case 0:
	case 1:
		n, ok := parseLength(cls[0])
		if !ok {
			return badHead("invalid Content-Length " + strconv.Quote(cls[0]))
		}
		h.contentLength = n
	default:
		// net/http accepts repeats of one value; a repeat is still two
		// framings to a parser that takes the last one.
		same := true
		for _, v := range cls[1:] {
			same = same && v == cls[0]
		}
		return &headError{status: 400, msg: "more than one Content-Length", strict: same}
	}
	if len(tes) > 0 {
		if h.minor == 0 {
			// net/http ignores Transfer-Encoding on HTTP/1.0 and frames
			// by Content-Length; a server that did not would read a
			// different body.
			return strictHead("Transfer-Encoding on an HTTP/1.0 request")
		}
		if len(tes) > 1 || !strings.EqualFold(tes[0], "chunked") {
			return &headError{status: 501, msg: "unsupported Transfer-Encoding " + strconv.Quote(strings.Join(tes, ", "))}
		}
		if len(cls) > 0 {
			// net/http lets chunked win; the request that a server
			// framing by Content-Length sees is another one (CL.TE).
			return strictHead("both Content-Length and Transfer-Encoding")
		}
		h.chunked = true
	}
	// No keep-alive for HTTP/1.0 clients.
	h.close = h.minor == 0 || slices.Contains(h.connTokens, "close")
	return nil
}

// framingFields collects the Content-Length and Transfer-Encoding
// values and the Connection options (lower case) of a message.
func framingFields(fields []field) (cls, tes, conn []string) {
	for _, f := range fields {
		switch {
		case strings.EqualFold(f.name, "Content-Length"):
			cls = append(cls, f.value)
		case strings.EqualFold(f.name, "Transfer-Encoding"):
			tes = append(tes, f.value)
		case strings.EqualFold(f.name, "Connection"):
			for t := range strings.SplitSeq(f.value, ",") {
				if t = strings.ToLower(strings.Trim(t, " \t")); t != "" {
					conn = append(conn, t)
				}
			}
		}
	}
	return cls, tes, conn
}

// parseLength parses 1*DIGIT up to 2^63-1.
func parseLength(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// responseHead is a parsed status line and header section.
type responseHead struct {
	minor         int
	status        int
	reason        string
	fields        []field
	contentLength int64 // -1: none
	chunked       bool
	close         bool
	connTokens    []string
}

// errBadResponse is an upstream response the proxy cannot frame.
type errBadResponse struct{ msg string }

func (e *errBadResponse) Error() string { return "malformed response from upstream: " + e.msg }

// readResponseHead reads an upstream status line and header section of
// at most limit bytes.
func readResponseHead(br *bufio.Reader, limit int) (*responseHead, error) {
	budget := limit
	line, err := readLine(br, &budget, false)
	if err != nil {
		return nil, responseErr(err)
	}
	s := string(line)
	r := &responseHead{contentLength: -1}
	switch {
	case strings.HasPrefix(s, "HTTP/1.1 "):
		r.minor = 1
	case strings.HasPrefix(s, "HTTP/1.0 "):
	default:
		return nil, &errBadResponse{"status line " + strconv.Quote(s)}
	}
	code, reason, _ := strings.Cut(s[9:], " ")
	if len(code) != 3 || !isDigit(code[0]) || !isDigit(code[1]) || !isDigit(code[2]) || code[0] == '0' {
		return nil, &errBadResponse{"status line " + strconv.Quote(s)}
	}
	r.status, _ = strconv.Atoi(code)
	for i := 0; i < len(reason); i++ {
		if !validValueByte(reason[i]) {
			return nil, &errBadResponse{"status line " + strconv.Quote(s)}
		}
	}
	r.reason = reason
	if r.fields, err = readFields(br, &budget, false); err != nil {
		return nil, responseErr(err)
	}
	cls, tes, conn := framingFields(r.fields)
	r.connTokens = conn
	r.close = r.minor == 0 || slices.Contains(conn, "close")
	for _, v := range cls {
		n, ok := parseLength(v)
		if !ok || r.contentLength >= 0 && n != r.contentLength {
			return nil, &errBadResponse{"Content-Length " + strconv.Quote(strings.Join(cls, ", "))}
		}
		r.contentLength = n
	}
	if len(tes) > 0 {
		// As net/http's client: only "chunked", and it wins over a
		// Content-Length.
		if len(tes) > 1 || !strings.EqualFold(tes[0], "chunked") {
			return nil, &errBadResponse{"unsupported Transfer-Encoding " + strconv.Quote(strings.Join(tes, ", "))}
		}
		r.chunked, r.contentLength = true, -1
	}
	return r, nil
}

func responseErr(err error) error {
	if he, ok := errors.AsType[*headError](err); ok {
		return &errBadResponse{he.msg}
	}
	if err == io.EOF || err == errNoRequest {
		return io.ErrUnexpectedEOF
	}
	return err
}

// isToken reports whether s is an RFC 9110 token (method, field name).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isTokenByte(s[i]) {
			return false
		}
	}
	return true
}

func isTokenByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', isDigit(c):
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// validValueByte: field-vchar, SP, HTAB, and obs-text (as net/http).
func validValueByte(c byte) bool {
	return c == ' ' || c == '\t' || c > ' ' && c != 0x7f
}

// validHost is net/http's Host header check: only bytes that can appear
// in uri-host [":" port].
func validHost(h string) bool {
	for i := 0; i < len(h); i++ {
		c := h[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || isDigit(c) {
			continue
		}
		if strings.IndexByte("!$%&'()*+,-.:;=[]_~", c) < 0 {
			return false
		}
	}
	return true
}
