package tomlquote

import (
	"testing"

	"github.com/pelletier/go-toml/v2"
)

func TestKey(t *testing.T) {
	tests := []struct{ in, want string }{
		{"fs_read_file", "fs_read_file"},
		{"a-b_9", "a-b_9"},
		{"", `""`},
		{"a.b", `"a.b"`},
		{"x y", `"x y"`},
		{`q"b\s`, `"q\"b\\s"`},
		{"del\x7f", `"del\u007F"`},
		{"bell\a\v", `"bell\u0007\u000B"`},
		{"t\tn\nr\r", `"t\tn\nr\r"`},
		{"é", `"é"`},
		{"a\xffb", "\"a\uFFFDb\""},
		// C1 controls (CSI is U+009B) and the line separators drive a
		// terminal as C0 controls do.
		{"csi\u009b2J", `"csi\u009B2J"`},
		{"ls\u2028ps\u2029", `"ls\u2028ps\u2029"`},
	}
	for _, tc := range tests {
		if got := Key(tc.in); got != tc.want {
			t.Errorf("Key(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// decoded is what a TOML decoder must read back from Key(s) or String(s):
// s itself, except that each byte of invalid UTF-8 is U+FFFD.
func decoded(s string) string { return string([]rune(s)) }

// FuzzKey: `Key(s) = 1` and `k = String(s)` parse with go-toml's decoder
// as exactly one key s and the value s, for any s.
func FuzzKey(f *testing.F) {
	for _, s := range []string{"", "a", "a.b", "\x7f", "\"", "\\", "\x00", "\t", "é", "\xff", "'", "[x]", "1.5", "true", "\U0010FFFF", "\u0085", "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var m map[string]any
		doc := Key(s) + " = 1\n"
		if err := toml.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatalf("Key(%q): %q does not parse: %v", s, doc, err)
		}
		if len(m) != 1 {
			t.Fatalf("Key(%q): %q has %d keys", s, doc, len(m))
		}
		if _, ok := m[decoded(s)]; !ok {
			t.Fatalf("Key(%q): %q decodes as %v", s, doc, m)
		}
		var v struct{ K string }
		doc = "K = " + String(s) + "\n"
		if err := toml.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatalf("String(%q): %q does not parse: %v", s, doc, err)
		}
		if v.K != decoded(s) {
			t.Fatalf("String(%q): %q decodes as %q", s, doc, v.K)
		}
	})
}
