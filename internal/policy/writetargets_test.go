package policy

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestWriteTargets: a path that resolves is its canonical form alone; a
// dangling link adds the file creating through it would make, through a
// chain of dangling links; a dangling link above the last element leaves
// the path as written (nothing can be created through it).
func TestWriteTargets(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mk := func(rel string) string { return filepath.Join(dir, rel) }
	if err := os.MkdirAll(mk("repo/dotfiles"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mk("repo/dotfiles/there"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"home/.present": mk("repo/dotfiles/there"),
		"home/.bashrc":  "../repo/dotfiles/bashrc", // relative, target missing
		"home/.zshrc":   mk("home/.zshrc-2"),       // a chain of two
		"home/.zshrc-2": mk("repo/dotfiles/zshrc"),
		"home/.config":  mk("repo/gone"), // a dangling directory link
	}
	if err := os.MkdirAll(mk("home"), 0o755); err != nil {
		t.Fatal(err)
	}
	for l, target := range links {
		if err := os.Symlink(target, mk(l)); err != nil {
			t.Skipf("no symlinks here: %v", err)
		}
	}
	tests := []struct {
		in   string
		want []string
	}{
		{"home/.present", []string{mk("repo/dotfiles/there")}},
		{"home/.missing", []string{mk("home/.missing")}},
		{"home/.bashrc", []string{mk("home/.bashrc"), mk("repo/dotfiles/bashrc")}},
		{"home/.zshrc", []string{mk("home/.zshrc"), mk("home/.zshrc-2"), mk("repo/dotfiles/zshrc")}},
		{"home/.config/fish", []string{mk("home/.config/fish")}},
	}
	for _, tt := range tests {
		for _, c := range []*StatCache{nil, NewStatCache()} {
			if got := c.WriteTargets(mk(tt.in)); !slices.Equal(got, tt.want) {
				t.Errorf("WriteTargets(%s) (cache %v) = %v, want %v", tt.in, c != nil, got, tt.want)
			}
		}
	}
}
