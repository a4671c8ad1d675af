package launcher

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/jp-policy/jp-policy/internal/emit/landlock"
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

// TestOutsideExecGrantsRelative: a program found relative to the working
// directory (./scripts/deploy.sh) is judged by where it is: inside a
// directory granted read and execute, nothing is outside the grants (the
// walkthrough's dry run printed a hint to mount scripts onto itself).
func TestOutsideExecGrantsRelative(t *testing.T) {
	ws := t.TempDir()
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		ws = real
	}
	script := filepath.Join(ws, "scripts", "deploy.sh")
	if err := os.MkdirAll(filepath.Dir(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte("echo deploy\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(ws)
	m := &landlock.Manifest{Root: ws, FS: []landlock.PathRule{
		{Path: ws, Access: []string{landlock.ReadFile}},
		{Path: filepath.Join(ws, "scripts"), Access: []string{landlock.ReadFile, landlock.Execute}},
	}}
	if out := outsideExecGrants(m, "./scripts/deploy.sh"); len(out) != 0 {
		t.Errorf("outsideExecGrants(./scripts/deploy.sh) = %v, want nothing: scripts has execute", out)
	}
	// The positive control: without the execute grant it is reported,
	// by its absolute path.
	m.FS = m.FS[:1]
	if out := outsideExecGrants(m, "./scripts/deploy.sh"); len(out) != 1 || out[0] != script {
		t.Errorf("outsideExecGrants without execute = %v, want [%s]", out, script)
	}
}
