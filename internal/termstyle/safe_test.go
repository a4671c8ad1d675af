package termstyle

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestSafe(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"src/main.go", "src/main.go"},
		{`C:\Users\me`, `C:\Users\me`},
		{"héllo wörld", "héllo wörld"},
		{"a\nb", `a\nb`},
		{"a\r\n::error::x", `a\r\n::error::x`},
		{"\x1b]0;owned\x07", `\x1b]0;owned\a`},
		{"\x1b[2J", `\x1b[2J`},
		{"tab\there", `tab\there`},
		{"\x7f", `\x7f`},
		{"\u009b31m", `\u009b31m`},
		{"abc\u202egpj.exe", `abc\u202egpj.exe`},
		{"zero\u200bwidth", `zero\u200bwidth`},
		{"line\u2028sep", `line\u2028sep`},
		{"bad\xffbyte", `bad\xffbyte`},
		{"a`b|c", "a`b|c"},
	} {
		if got := Safe(tc.in); got != tc.want {
			t.Errorf("Safe(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got, want := Code("a`b\nc"), "`a\\x60b\\nc`"; got != want {
		t.Errorf("Code = %q, want %q", got, want)
	}
}

// FuzzSafe: whatever the input, the output is valid UTF-8 with no
// control, separator or formatting character, and Code's output holds
// exactly its two delimiting backticks.
func FuzzSafe(f *testing.F) {
	for _, s := range []string{"", "a\nb", "\x1b[2J", "\u202e", "\xff", "`"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Safe(s)
		if !utf8.ValidString(out) {
			t.Fatalf("Safe(%q) = %q: invalid UTF-8", s, out)
		}
		for _, r := range out {
			if r < 0x20 || r == 0x7f || unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) {
				t.Fatalf("Safe(%q) = %q keeps %U", s, out, r)
			}
		}
		if c := Code(s); strings.Count(c, "`") != 2 {
			t.Fatalf("Code(%q) = %q", s, c)
		}
	})
}
