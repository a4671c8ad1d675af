package scratchhome

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestPlan(t *testing.T) {
	for _, tc := range []struct {
		name   string
		home   string
		grants []string
		links  []Link
		keep   bool
	}{
		{"no grants in home", "/home/u", []string{"/work/ws", "/usr"}, nil, false},
		{"caches", "/home/u", []string{"/work/ws", "/home/u/.npm", "/home/u/.cache/go-build"},
			[]Link{{".cache/go-build", "/home/u/.cache/go-build"}, {".npm", "/home/u/.npm"}}, false},
		{"nested grant reached through its ancestor", "/home/u", []string{"/home/u/.cargo/registry", "/home/u/.cargo"},
			[]Link{{".cargo", "/home/u/.cargo"}}, false},
		{"a sibling with a common prefix is not nested", "/home/u", []string{"/home/u/.cargo", "/home/u/.cargo-x"},
			[]Link{{".cargo", "/home/u/.cargo"}, {".cargo-x", "/home/u/.cargo-x"}}, false},
		{"home granted", "/home/u", []string{"/home/u", "/home/u/.npm"}, nil, true},
		{"ancestor of home granted", "/home/u", []string{"/home"}, nil, true},
		{"workspace is home's parent", "/home/u/", []string{"/home/u/.npm", "/"}, nil, true},
		{"a home with a common prefix is not granted", "/home/u", []string{"/home/uu"}, nil, false},
		{"no HOME", "", []string{"/x"}, nil, true},
		{"relative HOME", "home", []string{"/x"}, nil, true},
		{"root HOME", "/", []string{"/x"}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			links, keep := Plan(tc.home, tc.grants)
			if keep != tc.keep || !reflect.DeepEqual(links, tc.links) {
				t.Errorf("Plan(%q, %q) = %v, %v; want %v, %v", tc.home, tc.grants, links, keep, tc.links, tc.keep)
			}
		})
	}
}

func TestMake(t *testing.T) {
	real := t.TempDir()
	if err := os.MkdirAll(filepath.Join(real, ".cache", "go-build"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), Dir)
	links, _ := Plan(real, []string{filepath.Join(real, ".cache", "go-build")})
	for range 2 { // a second Make (the same run prepared twice) is a no-op
		if err := Make(dir, links); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.Readlink(filepath.Join(dir, ".cache", "go-build"))
	if err != nil || got != filepath.Join(real, ".cache", "go-build") {
		t.Fatalf("link = %q, %v", got, err)
	}
	st, err := os.Stat(dir)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("scratch home mode = %v, %v; want 0700", st.Mode(), err)
	}
	// A dotfile can be created directly in it.
	if err := os.WriteFile(filepath.Join(dir, ".node-spawn-wrap-1"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestHome(t *testing.T) {
	if got := Home([]string{"A=1", "HOME=/a", "HOME=/b"}); got != "/b" {
		t.Errorf("Home = %q, want the last HOME", got)
	}
	if got := Home([]string{"HOMEX=/a"}); got != "" {
		t.Errorf("Home = %q, want empty", got)
	}
}
