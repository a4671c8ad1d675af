package policy

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// hostProfile is UTS #46 lookup processing (case folding, full-width dot
// mapping, Punycode) without the STD3 ASCII restriction, so hosts such as
// "svc_a.internal" survive; hostByteOK below applies our own stricter
// ASCII check afterwards.
var hostProfile = idna.New(
	idna.MapForLookup(),
	idna.BidiRule(),
	idna.Transitional(false),
	idna.StrictDomainName(false),
	idna.VerifyDNSLength(true),
)

// NormalizeHost returns the canonical ASCII form of a rule or target host:
// IP literals in netip's form (brackets removed), names mapped through
// IDNA to Punycode and lower-cased. Wildcards, ports, userinfo and paths
// are errors: RFD 076 hosts match exactly.
func NormalizeHost(h string) (string, error) {
	if h == "" {
		return "", errors.New("host is empty")
	}
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		a, err := netip.ParseAddr(h[1 : len(h)-1])
		if err != nil || !a.Is6() {
			return "", fmt.Errorf("host %q is not a valid IPv6 literal", h)
		}
		return a.Unmap().String(), nil
	}
	if a, ok := parseAddrLiteral(h); ok {
		return a.Unmap().String(), nil
	}
	if !utf8.ValidString(h) {
		return "", fmt.Errorf("host %q is not valid UTF-8", h)
	}
	ascii, err := hostProfile.ToASCII(h)
	if err != nil {
		return "", fmt.Errorf("host %q is not a valid host name: %v", h, err)
	}
	ascii = strings.ToLower(ascii)
	// The ASCII form must itself be a valid host that maps to itself;
	// otherwise rule and target could normalise differently.
	if again, err := hostProfile.ToASCII(ascii); err != nil || again != ascii {
		return "", fmt.Errorf("host %q has no stable ASCII form", h)
	}
	// One trailing dot names the same host (the DNS root); dropping it
	// keeps "example.com." from being a second spelling of a rule host.
	ascii = strings.TrimSuffix(ascii, ".")
	if ascii == "" || strings.HasSuffix(ascii, ".") {
		return "", fmt.Errorf("host %q is not a valid host name", h)
	}
	// A name whose last label is a number is an IPv4 address in every URL
	// parser that matters (WHATWG, curl, browsers): "0x7f.1", "2130706433"
	// and "127.1" all mean 127.0.0.1. Canonicalise them here so a rule
	// about the address covers every spelling, and so no resolver can later
	// read the name differently from the policy.
	if endsInNumber(ascii) {
		a, ok := parseIPv4Numeric(ascii)
		if !ok {
			return "", fmt.Errorf("host %q ends in a number but is not an IPv4 address", h)
		}
		return a.String(), nil
	}
	for i := 0; i < len(ascii); i++ {
		if !hostByteOK(ascii[i]) {
			return "", fmt.Errorf("host %q contains %q, which no host name may (rules match hosts exactly; there are no wildcards)", h, ascii[i])
		}
	}
	return ascii, nil
}

// endsInNumber is the WHATWG URL "ends in a number" test on an ASCII
// host without a trailing dot: its last label is all decimal digits, or
// "0x"/"0X" followed by hex digits.
func endsInNumber(h string) bool {
	last := h[strings.LastIndexByte(h, '.')+1:]
	if last == "" {
		return false
	}
	if allDigits(last, 10) {
		return true
	}
	return len(last) >= 2 && last[0] == '0' && (last[1] == 'x' || last[1] == 'X') && allDigits(last[2:], 16)
}

func allDigits(s string, base int) bool {
	for i := 0; i < len(s); i++ {
		if _, ok := digitVal(s[i], base); !ok {
			return false
		}
	}
	return true
}

func digitVal(c byte, base int) (uint64, bool) {
	var v uint64
	switch {
	case c >= '0' && c <= '9':
		v = uint64(c - '0')
	case c >= 'a' && c <= 'f':
		v = uint64(c-'a') + 10
	case c >= 'A' && c <= 'F':
		v = uint64(c-'A') + 10
	default:
		return 0, false
	}
	return v, v < uint64(base)
}

// parseIPv4Numeric is the WHATWG IPv4 parser (inet_aton forms): one to
// four dot-separated parts, each decimal, octal (leading 0) or hex (0x);
// every part but the last is a byte, the last fills the remaining bytes.
func parseIPv4Numeric(h string) (netip.Addr, bool) {
	parts := strings.Split(h, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var nums []uint64
	for _, p := range parts {
		n, ok := parseIPv4Part(p)
		if !ok {
			return netip.Addr{}, false
		}
		nums = append(nums, n)
	}
	var v uint64
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false
		}
		v |= n << (8 * (3 - i))
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	v |= last
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

func parseIPv4Part(p string) (uint64, bool) {
	if p == "" {
		return 0, false
	}
	base := 10
	switch {
	case len(p) >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'):
		base, p = 16, p[2:]
	case len(p) >= 2 && p[0] == '0':
		base, p = 8, p[1:]
	}
	var n uint64
	for i := 0; i < len(p); i++ {
		d, ok := digitVal(p[i], base)
		if !ok {
			return 0, false
		}
		n = n*uint64(base) + d
		if n > 1<<32 {
			return 0, false
		}
	}
	return n, true
}

func hostByteOK(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_'
}

// DefaultPort returns the well-known port of a URL scheme.
func DefaultPort(scheme string) (uint16, bool) {
	switch strings.ToLower(scheme) {
	case "http", "ws":
		return 80, true
	case "https", "wss":
		return 443, true
	case "ftp":
		return 21, true
	}
	return 0, false
}

func validScheme(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alpha := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if i == 0 && !alpha || !alpha && !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// ValidateNetRule checks one net rule as written: a host NormalizeHost
// accepts, a well-formed scheme, and a path_prefix starting with "/". A
// portless rule on a scheme without a default port could never match,
// which is reported rather than left as a silent no-op.
func ValidateNetRule(r NetRule) error {
	_, err := compileNetRule(r)
	return err
}

type netRuleC struct {
	host   string
	scheme string // lower case, "" = any
	port   int    // -1 = default port of the target's scheme
	segs   []string
	spec   int
}

func compileNetRule(r NetRule) (netRuleC, error) {
	h, err := NormalizeHost(r.Host)
	if err != nil {
		return netRuleC{}, err
	}
	c := netRuleC{host: h, port: -1}
	if r.Scheme != nil {
		if !validScheme(*r.Scheme) {
			return netRuleC{}, fmt.Errorf("scheme %q is not a URL scheme", *r.Scheme)
		}
		c.scheme = strings.ToLower(*r.Scheme)
		c.spec++
		if r.Port == nil {
			if _, ok := DefaultPort(c.scheme); !ok {
				return netRuleC{}, fmt.Errorf("scheme %q has no default port; set port", c.scheme)
			}
		}
	}
	if r.Port != nil {
		c.port = int(*r.Port)
		c.spec++
	}
	if r.PathPrefix != nil {
		p := *r.PathPrefix
		if !strings.HasPrefix(p, "/") {
			return netRuleC{}, fmt.Errorf("path_prefix %q must start with \"/\"", p)
		}
		if strings.ContainsAny(p, "?#") {
			return netRuleC{}, fmt.Errorf("path_prefix %q must not hold a query or fragment", p)
		}
		c.segs = pathSegments(p)
		c.spec += len(c.segs)
	}
	return c, nil
}

// pathSegments cleans p (dot segments removed, as a server would) and
// splits it into its non-empty segments.
func pathSegments(p string) []string {
	p = path.Clean("/" + p)
	if p == "/" {
		return nil
	}
	return strings.Split(p[1:], "/")
}

// netTarget is a parsed request URL.
type netTarget struct {
	scheme string
	host   string
	// port is the effective port: explicit, else the scheme's default;
	// -1 when neither is known.
	port int
	// onDefault reports whether port is the scheme's default port (or
	// implicit), which is what a portless rule requires.
	onDefault bool
	path      string // cleaned, starts with "/"; "" when noPath
	// noPath: the path is not visible (a CONNECT or SOCKS tunnel).
	noPath bool
}

func parseNetTarget(raw string) (netTarget, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return netTarget{}, errors.New("not a URL: " + strings.TrimPrefix(err.Error(), "parse "))
	}
	if u.Scheme == "" || u.Opaque != "" || u.Host == "" {
		return netTarget{}, errors.New("not an absolute URL with a host (scheme://host/...)")
	}
	h, err := NormalizeHost(u.Hostname())
	if err != nil {
		return netTarget{}, err
	}
	t := netTarget{scheme: strings.ToLower(u.Scheme), host: h, port: -1}
	def, hasDef := DefaultPort(t.scheme)
	if ps := u.Port(); ps != "" {
		n, err := strconv.ParseUint(ps, 10, 16)
		if err != nil {
			return netTarget{}, fmt.Errorf("port %q is not a TCP port", ps)
		}
		t.port = int(n)
		t.onDefault = hasDef && uint16(n) == def
	} else {
		if hasDef {
			t.port = int(def)
		}
		t.onDefault = true
	}
	t.path = path.Clean("/" + u.Path)
	return t, nil
}

// matches reports whether rule r applies to t.
func (r *netRuleC) matches(t *netTarget) bool {
	if !r.matchesEndpoint(t) {
		return false
	}
	if t.noPath {
		return len(r.segs) == 0
	}
	return segsPrefix(t.path, r.segs)
}

// matchesEndpoint is matches without the path.
func (r *netRuleC) matchesEndpoint(t *netTarget) bool {
	if r.host != t.host {
		return false
	}
	if r.scheme != "" && r.scheme != t.scheme {
		return false
	}
	if r.port >= 0 {
		if t.port != r.port {
			return false
		}
	} else if !t.onDefault {
		return false
	}
	return true
}

// coversPort reports whether rule r reaches t's host and port over any
// scheme: the rule's port, else its scheme's default port, else (neither
// set: the default port of whatever scheme a request names) any scheme's
// default port. The scheme itself is not compared: it is how a request
// names its protocol, and a tunnel to the port can speak any.
func (r *netRuleC) coversPort(t *netTarget) bool {
	if r.host != t.host {
		return false
	}
	switch {
	case r.port >= 0:
		return t.port == r.port
	case r.scheme != "":
		def, _ := DefaultPort(r.scheme)
		return t.port == int(def)
	}
	if t.onDefault || t.port < 0 {
		return true
	}
	for _, s := range defaultPortSchemes {
		if def, _ := DefaultPort(s); t.port == int(def) {
			return true
		}
	}
	return false
}

// defaultPortSchemes are the schemes DefaultPort knows.
var defaultPortSchemes = []string{"http", "https", "ws", "wss", "ftp"}

// segsPrefix reports whether the segments of p (cleaned, rooted) start
// with segs, without splitting p.
func segsPrefix(p string, segs []string) bool {
	rest := p[1:]
	for _, s := range segs {
		if !strings.HasPrefix(rest, s) {
			return false
		}
		rest = rest[len(s):]
		if rest == "" {
			continue
		}
		if rest[0] != '/' {
			return false
		}
		rest = rest[1:]
	}
	return true
}

// describe renders a rule as a URL pattern for grants and messages.
func describeNetRule(r NetRule) string {
	var b strings.Builder
	if r.Scheme != nil {
		b.WriteString(strings.ToLower(*r.Scheme) + "://")
	}
	h, err := NormalizeHost(r.Host)
	if err != nil {
		h = r.Host
	}
	if strings.IndexByte(h, ':') >= 0 {
		h = "[" + h + "]"
	}
	b.WriteString(h)
	if r.Port != nil {
		b.WriteString(":" + strconv.Itoa(int(*r.Port)))
	}
	if r.PathPrefix != nil {
		b.WriteString(*r.PathPrefix)
	}
	return b.String()
}
