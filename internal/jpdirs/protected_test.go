package jpdirs

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/jp-policy/jp-policy/internal/platform"
)

func TestProtectedPaths(t *testing.T) {
	if platform.Host != platform.Linux {
		t.Skip("the XDG layout is Linux's")
	}
	paths := func(env map[string]string) []string {
		var out []string
		for _, p := range ProtectedPaths("", func(k string) string { return env[k] }) {
			if p.What == "" {
				t.Errorf("%s: no reason", p.Path)
			}
			out = append(out, p.Path)
		}
		return out
	}
	tests := []struct {
		name    string
		env     map[string]string
		want    []string
		notWant []string
	}{
		{"home only", map[string]string{"HOME": "/h"},
			[]string{"/h/.config/jp", "/h/.local/share/jp/jp-policy", "/h/.bashrc", "/h/.profile", "/h/.zshenv", "/h/.gitconfig", "/h/.ssh", "/h/.config/git", "/h/.config/fish"}, nil},
		{"xdg and jp dirs", map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "/x", "JP_GLOBAL_CONFIG_DIR": "/g", "JP_USER_DATA_DIR": "/d"},
			[]string{"/g", "/d/jp-policy", "/h/.bashrc", "/x/git", "/x/fish"}, []string{"/h/.config/git", "/x/jp"}},
		{"relative xdg ignored", map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "rel"},
			[]string{"/h/.config/git"}, []string{"rel/git"}},
		{"what the start-up files run", map[string]string{"HOME": "/h"},
			[]string{"/h/.bash_aliases", "/h/.local/bin", "/h/bin", "/h/.xprofile", "/h/.bashrc.d", "/h/.config/environment.d", "/h/.config/plasma-workspace", "/h/.local/share/systemd", "/h/.local/share/bash-completion"}, []string{"/.zshrc"}},
		{"xdg data home", map[string]string{"HOME": "/h", "XDG_DATA_HOME": "/d"},
			[]string{"/d/systemd", "/d/bash-completion"}, []string{"/h/.local/share/systemd"}},
		{"zdotdir", map[string]string{"HOME": "/h", "ZDOTDIR": "/h/.config/zsh"},
			[]string{"/h/.zshrc", "/h/.config/zsh/.zshrc", "/h/.config/zsh/.zshenv", "/h/.config/zsh/.zlogin"}, nil},
		{"relative zdotdir ignored", map[string]string{"HOME": "/h", "ZDOTDIR": "zsh"},
			[]string{"/h/.zshrc"}, []string{"zsh/.zshrc"}},
		{"no home", map[string]string{"JP_USER_DATA_DIR": "/d"},
			[]string{"/d/jp-policy"}, []string{"/.bashrc", ".bashrc"}},
		{"relative home", map[string]string{"HOME": "h", "JP_USER_DATA_DIR": "/d"},
			[]string{"/d/jp-policy"}, []string{"h/.bashrc"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := paths(tc.env)
			for _, w := range tc.want {
				if !slices.Contains(got, filepath.FromSlash(w)) {
					t.Errorf("missing %s in %v", w, got)
				}
			}
			for _, w := range tc.notWant {
				if slices.Contains(got, filepath.FromSlash(w)) {
					t.Errorf("unexpected %s in %v", w, got)
				}
			}
		})
	}
}

func TestNestedGitDirs(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{".git/hooks", "a/.git/hooks", "a/b/c/.git", "vendor/x/.git/modules/y/.git", "plain/dir"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "a/sub"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "s"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "s/.git"), []byte("gitdir: ../.git/modules/s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	// A bare repository (HEAD beside objects/ and refs/), a HEAD alone
	// (not one), and a `.git` symlink, whose target is returned.
	for _, d := range []string{"m/p.git/objects", "m/p.git/refs", "notbare", "r", "store"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"m/p.git/HEAD", "notbare/HEAD", "store/config"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../store", filepath.Join(root, "r/.git")); err != nil {
		t.Fatal(err)
	}
	store, err := filepath.EvalSymlinks(filepath.Join(root, "store"))
	if err != nil {
		t.Fatal(err)
	}
	got, complete := NestedGitDirs(root, GitScanLimit, 0)
	want := []string{filepath.Join(root, "a/.git"), filepath.Join(root, "a/b/c/.git"), filepath.Join(root, "m/p.git"), store, filepath.Join(root, "s/.git"), filepath.Join(root, "vendor/x/.git")}
	if !complete || !slices.Equal(got, want) {
		t.Errorf("NestedGitDirs = %v %v, want %v complete", got, complete, want)
	}
	if _, complete := NestedGitDirs(root, 3, 0); complete {
		t.Error("a walk cut short reported complete")
	}
	// Depth 3: a/b/c/.git is four names down, vendor/x/.git three.
	got, _ = NestedGitDirs(root, GitScanLimit, 3)
	want = []string{filepath.Join(root, "a/.git"), filepath.Join(root, "m/p.git"), store, filepath.Join(root, "s/.git"), filepath.Join(root, "vendor/x/.git")}
	if !slices.Equal(got, want) {
		t.Errorf("NestedGitDirs to depth 3 = %v, want %v", got, want)
	}
}

// BenchmarkNestedGitDirs walks the repository itself, as exec's
// namespaced path walks a writable workspace on every call.
func BenchmarkNestedGitDirs(b *testing.B) {
	root, err := filepath.Abs("../..")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		NestedGitDirs(root, GitScanLimit, 0)
	}
}
