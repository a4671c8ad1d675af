package launcher

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/jp-policy/jp-policy/internal/plan/landlock"
)

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
