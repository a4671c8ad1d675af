package launcher

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRealCwd: realCwd is os.Getwd with the symlinks resolved, also when
// the process entered the directory through a symlink (and $PWD says so).
func TestRealCwd(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(base, "real", "sub")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(filepath.Join(base, "real"), link); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	for _, dir := range []string{real, filepath.Join(link, "sub")} {
		t.Chdir(dir)
		t.Setenv("PWD", dir)
		got, err := realCwd()
		if err != nil {
			t.Fatalf("realCwd in %s: %v", dir, err)
		}
		if got != real {
			t.Errorf("realCwd in %s = %q, want %q", dir, got, real)
		}
	}
}
