package termstyle

import (
	"bytes"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func env(kv ...string) func(string) (string, bool) {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestColorize(t *testing.T) {
	var buf bytes.Buffer // never a terminal
	for _, tc := range []struct {
		name string
		mode ColorMode
		env  []string
		want bool
	}{
		{"auto, not a terminal", ColorAuto, nil, false},
		{"always wins over NO_COLOR", ColorAlways, []string{"NO_COLOR", "1"}, true},
		{"never wins over FORCE_COLOR", ColorNever, []string{"FORCE_COLOR", "1"}, false},
		{"FORCE_COLOR colours a pipe", ColorAuto, []string{"FORCE_COLOR", "1"}, true},
		{"FORCE_COLOR=0 is not forcing", ColorAuto, []string{"FORCE_COLOR", "0"}, false},
		{"empty FORCE_COLOR is not forcing", ColorAuto, []string{"FORCE_COLOR", ""}, false},
		{"NO_COLOR beats FORCE_COLOR", ColorAuto, []string{"NO_COLOR", "1", "FORCE_COLOR", "1"}, false},
		{"empty NO_COLOR is ignored", ColorAuto, []string{"NO_COLOR", "", "FORCE_COLOR", "1"}, true},
		{"TERM=dumb", ColorAuto, []string{"TERM", "dumb"}, false},
		{"FORCE_COLOR beats TERM=dumb", ColorAuto, []string{"TERM", "dumb", "FORCE_COLOR", "1"}, true},
	} {
		if got := Colorize(tc.mode, &buf, env(tc.env...)); got != tc.want {
			t.Errorf("%s: Colorize = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestParseColorMode(t *testing.T) {
	for in, want := range map[string]ColorMode{"": ColorAuto, "auto": ColorAuto, "always": ColorAlways, "never": ColorNever} {
		if got, err := ParseColorMode(in); err != nil || got != want {
			t.Errorf("ParseColorMode(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseColorMode("yes"); err == nil {
		t.Error("ParseColorMode(yes): no error")
	}
}

func TestWidth(t *testing.T) {
	var buf bytes.Buffer
	for _, tc := range []struct {
		env  []string
		want int
	}{
		{nil, DefaultWidth},
		{[]string{"COLUMNS", "120"}, 120},
		{[]string{"COLUMNS", "10"}, minWidth},
		{[]string{"COLUMNS", "wide"}, DefaultWidth},
		{[]string{"COLUMNS", "-3"}, DefaultWidth},
	} {
		if got := Width(&buf, env(tc.env...)); got != tc.want {
			t.Errorf("Width with %v = %d, want %d", tc.env, got, tc.want)
		}
	}
}

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		width    int
		want     string
	}{
		{"short lines stay", "  a  b\nc\n", 40, "  a  b\nc\n"},
		{"hanging indent", "  aaa bbb ccc ddd\n", 12, "  aaa bbb\n      ccc\n      ddd\n"},
		{"aligned columns kept on the first line", "[0] x      yyy zzz\n", 14, "[0] x      yyy\n    zzz\n"},
		{"a long word overflows, unsplit", "  /a/very/long/path rest\n", 12, "  /a/very/long/path\n      rest\n"},
		{"no trailing newline", "aa bb cc dd", 8, "aa bb cc\n    dd"},
		{"runes, not bytes", "— — — — — —\n", 9, "— — — — —\n    —\n"},
		{"deep indent is not hung further", "          aa bb cc\n", 14, "          aa\n       bb cc\n"},
	} {
		if got := Wrap(tc.in, tc.width); got != tc.want {
			t.Errorf("%s: Wrap(%q, %d) =\n%q\nwant\n%q", tc.name, tc.in, tc.width, got, tc.want)
		}
	}
}

// FuzzWrap checks Wrap's promises: the words (and their order) are
// unchanged, only spaces and newlines move; every output line fits the
// width unless it holds a single word after its indent.
func FuzzWrap(f *testing.F) {
	f.Add("      fs.read    enforced    read under . — Landlock rule on the workspace root\n", 40)
	f.Add("a b c d e f g h i j k l m n o p", 41)
	f.Add("    [0] src/deep/path                       read, create   .jp/config.toml:4:1", 44)
	f.Fuzz(func(t *testing.T, in string, width int) {
		// Wrap breaks at ASCII spaces only (what the CLI prints); other
		// white space (\t, \r, \f, U+00A0, ...) is text to it but a
		// separator to strings.Fields, which the checks below use.
		otherSpace := strings.ContainsFunc(in, func(r rune) bool { return unicode.IsSpace(r) && r != ' ' && r != '\n' })
		if !utf8.ValidString(in) || otherSpace || width < 1 || width > 400 {
			return
		}
		out := Wrap(in, width)
		if strings.Join(strings.Fields(in), " ") != strings.Join(strings.Fields(out), " ") {
			t.Fatalf("words changed:\nin  %q\nout %q", in, out)
		}
		if strings.Count(in, "\n") > strings.Count(out, "\n") {
			t.Fatalf("lines lost: %q -> %q", in, out)
		}
		for line := range strings.SplitSeq(out, "\n") {
			if utf8.RuneCountInString(line) > width && len(strings.Fields(line)) > 1 {
				inLine := false
				for l := range strings.SplitSeq(in, "\n") {
					if l == line {
						inLine = true
					}
				}
				// An unchanged input line only overflows when its first
				// break point is past the width (an overlong first word).
				if !inLine || len(strings.Fields(strings.TrimLeft(line, " ")[:min(width, len(strings.TrimLeft(line, " ")))])) > 1 {
					t.Fatalf("line over %d columns with room to break: %q\n(in %q)", width, line, in)
				}
			}
		}
	})
}
