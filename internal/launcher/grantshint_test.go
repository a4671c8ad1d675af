package launcher

import (
	"os/exec"
	"testing"
)

// TestShellQuote: the printed mount command survives a shell whatever the
// toolchain's path holds (the shell gives back exactly the word).
func TestShellQuote(t *testing.T) {
	for _, s := range []string{"t:cargo=~/.cargo:rx", "t:x=/opt/my tools:rx", "t:x=/a'b$c`d\"e:rx", "t:x=/ü/\\n;rm -rf:rx"} {
		q := shellQuote(s)
		if s == "t:cargo=~/.cargo:rx" && q != s {
			t.Errorf("plain %q quoted as %q", s, q)
		}
		out, err := exec.Command("sh", "-c", "printf %s "+q).Output()
		if err != nil {
			t.Skipf("no sh: %v", err)
		}
		if string(out) != s {
			t.Errorf("shellQuote(%q) = %s, which sh reads as %q", s, q, out)
		}
	}
}
