package lint

import (
	"path/filepath"
	"testing"
)

func TestParseSensitive(t *testing.T) {
	home := filepath.FromSlash("/home/u")
	for _, tc := range []struct {
		in        string
		home      string
		ok        bool
		abs, glob string
		absGlob   bool
	}{
		{"~/.ssh/", home, true, filepath.FromSlash("/home/u/.ssh"), "", false},
		{"~/.aws/credentials", home, true, filepath.FromSlash("/home/u/.aws/credentials"), "", false},
		{"~/.ssh/", "", false, "", "", false},
		{"**/.env.*", home, true, "", "**/.env.*", false},
		{"secrets/*.pem", home, true, "", "secrets/*.pem", false},
		{"~/keys/*.pem", home, true, "", "/home/u/keys/*.pem", true},
		{"/etc/shadow", home, true, filepath.FromSlash("/etc/shadow"), "", false},
		{"  ", home, false, "", "", false},
	} {
		sp, ok := parseSensitive(tc.in, tc.home)
		if ok != tc.ok || (ok && (sp.abs != tc.abs || sp.glob != tc.glob || sp.absGlob != tc.absGlob)) {
			t.Errorf("parseSensitive(%q) = %+v, %v", tc.in, sp, ok)
		}
	}
}

func TestRelUnder(t *testing.T) {
	d := filepath.FromSlash("/a/b")
	for _, tc := range []struct {
		p, rel string
		ok     bool
	}{
		{"/a/b", "", true},
		{"/a/b/c/d", "c/d", true},
		{"/a/bc", "", false},
		{"/a", "", false},
		{"/x/../a/b/c", "c", true},
	} {
		rel, ok := relUnder(d, filepath.FromSlash(tc.p))
		if rel != tc.rel || ok != tc.ok {
			t.Errorf("relUnder(%q) = %q, %v; want %q, %v", tc.p, rel, ok, tc.rel, tc.ok)
		}
	}
	if _, ok := relUnder("", "/a"); ok {
		t.Error("empty dir contains nothing")
	}
	for _, tc := range []struct {
		dir, key, rel string
		ok            bool
	}{
		{"", "a/b", "a/b", true},
		{".jp", ".jp", "", true},
		{".jp", ".jp/policy/x", "policy/x", true},
		{".jp", ".jpx", "", false},
		{".git/hooks", ".git", "", false},
	} {
		rel, ok := relUnderKey(tc.dir, tc.key)
		if rel != tc.rel || ok != tc.ok {
			t.Errorf("relUnderKey(%q, %q) = %q, %v", tc.dir, tc.key, rel, ok)
		}
	}
}

// FuzzRelUnder: the prefix shortcut answers as filepath.Rel does.
func FuzzRelUnder(f *testing.F) {
	for _, c := range [][2]string{{"/a/b", "/a/b/c"}, {"/", "/x"}, {"/a/b", "/a/bc"}, {"/a/b", "/a/b"}, {"/a/b/", "/a/b/c"}, {"a", "a/b"}, {"/a/./b", "/a/b/c"}, {"/", "/"}} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, dir, p string) {
		gr, gok := relUnder(dir, p)
		wr, wok := "", false
		if dir != "" && p != "" {
			wr, wok = relUnderByRel(dir, p)
		}
		if gr != wr || gok != wok {
			t.Fatalf("relUnder(%q, %q) = %q %v; filepath.Rel says %q %v", dir, p, gr, gok, wr, wok)
		}
	})
}
