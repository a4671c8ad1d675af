package attachuri

import (
	"strings"
	"testing"
)

// FuzzFileURI: any workspace-relative path gives a URI that a URL parser
// cannot misread: no raw space, control byte, non-ASCII byte, '#', '?' or
// backslash, and (without a literal '%') the original bytes come back by
// percent-decoding.
func FuzzFileURI(f *testing.F) {
	for _, s := range []string{"src/main.rs", "a b/ü?#.txt", `x\y`, "100%", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rel string) {
		u := FileURI(rel)
		rest, ok := strings.CutPrefix(u, "file:///")
		if !ok {
			t.Fatalf("%q: no file:/// prefix", u)
		}
		for i := 0; i < len(rest); i++ {
			c := rest[i]
			if c <= ' ' || c >= 0x7f || strings.IndexByte("#?\\\"<>`{}", c) >= 0 {
				t.Fatalf("%q: unescaped byte %q", u, c)
			}
		}
		// A literal '%' is kept as JP's URL library keeps it, so only
		// inputs without one decode unambiguously.
		if strings.Contains(rel, "%") {
			return
		}
		if got := unescape(rest); got != rel {
			t.Fatalf("decode(%q) = %q, want %q", u, got, rel)
		}
	})
}

// unescape reverses escapePath (only the %XX it writes; a literal '%' is
// left as is, as the WHATWG path set leaves it).
func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			v := hexVal(s[i+1])<<4 | hexVal(s[i+2])
			if v <= ' ' || v >= 0x7f || strings.IndexByte("\"#<>?`{}\\", v) >= 0 {
				b.WriteByte(v)
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'A' && c <= 'F' }

func hexVal(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c - 'A' + 10
}
