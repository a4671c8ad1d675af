package shquote

import (
	"os/exec"
	"testing"
)

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"fmt":                  "fmt",
		"~/.cache/pip":         "~/.cache/pip",
		"":                     "''",
		"a b":                  "'a b'",
		"it's":                 `'it'\''s'`,
		"$(rm -rf /)":          "'$(rm -rf /)'",
		"t:n=~/x:rw":           "t:n=~/x:rw",
		"line\nbreak":          "'line\nbreak'",
		"back`tick`":           "'back`tick`'",
		"semi;colon&amp":       "'semi;colon&amp'",
		"t:cargo=~/.cargo:rx":  "t:cargo=~/.cargo:rx",
		"t:x=/opt/my tools:rx": "'t:x=/opt/my tools:rx'",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

// FuzzQuote: whatever s is, sh reads Quote(s) back as exactly s (the
// shell is the oracle).
func FuzzQuote(f *testing.F) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		f.Skip("no sh to read the quoted words back")
	}
	for _, s := range []string{"", "a", "a b", "'", `"$x"`, "~", "~/a b", "\\", "\x01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i := 0; i < len(s); i++ {
			if s[i] == 0 {
				return // no shell word holds a NUL
			}
		}
		if len(s) > 0 && s[0] == '~' && Quote(s) == s {
			return // a plain ~word is expanded by the shell, on purpose
		}
		out, err := exec.Command(sh, "-c", `printf %s `+Quote(s)).Output()
		if err != nil {
			t.Fatalf("sh -c printf %s: %v", Quote(s), err)
		}
		if string(out) != s {
			t.Fatalf("Quote(%q) = %s reads back as %q", s, Quote(s), out)
		}
	})
}
