package policy

import (
	"os"
	"path/filepath"
	"testing"
)

//go:fix inline
func up(u uint16) *uint16 { return new(u) }

// tree builds files, dirs and symlinks under base from a spec: "d/" is a
// directory, "f" a file, "l -> target" a symlink (target as written).
func tree(t testing.TB, base string, spec ...string) {
	t.Helper()
	for _, s := range spec {
		var name, target string
		if i := indexArrow(s); i >= 0 {
			name, target = s[:i], s[i+4:]
		} else {
			name = s
		}
		p := filepath.Join(base, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		switch {
		case target != "":
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
		case name[len(name)-1] == '/':
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		default:
			if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func indexArrow(s string) int {
	for i := 0; i+4 <= len(s); i++ {
		if s[i:i+4] == " -> " {
			return i
		}
	}
	return -1
}

// tmp returns a canonical temp dir (macOS /var is a symlink).
func tmp(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}
