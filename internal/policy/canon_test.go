package policy

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestLexicalRel(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		kind     PathErrorKind
	}{
		{"", "", ""},
		{".", "", ""},
		{"./", "", ""},
		{"a/./b/../c", "a/c", ""},
		{"a//b/", "a/b", ""},
		{"a/..", "", ""},
		{"src/lib.rs", "src/lib.rs", ""},
		{"../a", "", KindInputEscape},
		{"a/../../b", "", KindInputEscape},
		{"..", "", KindInputEscape},
		{"/etc/passwd", "", KindAbsolute},
		{"//x", "", KindAbsolute},
		{"a\x00b", "", KindNUL},
		{strings.Repeat("a/", 3000), "", KindTooLong},
		{`a\b`, `a\b`, ""}, // an ordinary byte on Unix
	} {
		got, err := LexicalRel(tc.in)
		if tc.kind != "" {
			var pe *PathError
			if !errors.As(err, &pe) || pe.Kind != tc.kind {
				t.Errorf("LexicalRel(%q) = %q, %v; want kind %s", tc.in, got, err, tc.kind)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("LexicalRel(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestCanonicalize(t *testing.T) {
	base := tmp(t)
	ws := filepath.Join(base, "ws")
	out := filepath.Join(base, "out")
	tree(t, base,
		"ws/src/lib.rs", "ws/secret/key", "ws/file",
		"ws/alias -> secret",
		"ws/alias2 -> ./src/../secret",
		"ws/abs -> "+filepath.Join(ws, "src"),
		"ws/fork -> ../out/x",
		"out/x/src/lib.rs",
		"out/x/secrets -> ../etc",
		"out/etc/passwd",
		"ws/broken -> ../out/missing",
		"ws/dangle-in -> nothere",
		"ws/loop1 -> loop2", "ws/loop2 -> loop1",
		"ws/self -> self",
		"ws/up -> ..",
		"ws/chain1 -> chain2", "ws/chain2 -> src",
	)
	for _, tc := range []struct {
		in             string
		abs, rel       string
		inside, exists bool
		kind           PathErrorKind
	}{
		{in: "", abs: ws, rel: "", inside: true, exists: true},
		{in: "src/lib.rs", abs: ws + "/src/lib.rs", rel: "src/lib.rs", inside: true, exists: true},
		{in: "alias/key", abs: ws + "/secret/key", rel: "secret/key", inside: true, exists: true},
		{in: "alias2/key", abs: ws + "/secret/key", rel: "secret/key", inside: true, exists: true},
		{in: "abs/lib.rs", abs: ws + "/src/lib.rs", rel: "src/lib.rs", inside: true, exists: true},
		{in: "chain1/lib.rs", abs: ws + "/src/lib.rs", rel: "src/lib.rs", inside: true, exists: true},
		{in: "new/dir/file.txt", abs: ws + "/new/dir/file.txt", rel: "new/dir/file.txt", inside: true},
		{in: "alias/new", abs: ws + "/secret/new", rel: "secret/new", inside: true},
		{in: "file/child", abs: ws + "/file/child", rel: "file/child", inside: true},
		{in: "fork/src/lib.rs", abs: out + "/x/src/lib.rs", exists: true},
		{in: "fork/secrets/passwd", abs: out + "/etc/passwd", exists: true},
		{in: "fork/new.rs", abs: out + "/x/new.rs"},
		{in: "up/ws/src", abs: ws + "/src", rel: "src", inside: true, exists: true},
		{in: "up/out/etc", abs: out + "/etc", exists: true},
		{in: "broken", kind: KindDangling},
		{in: "broken/x", kind: KindDangling},
		{in: "dangle-in", kind: KindDangling},
		{in: "loop1", kind: KindLoop},
		{in: "self/x", kind: KindLoop},
		{in: "/etc", kind: KindAbsolute},
		{in: "../ws/src", kind: KindInputEscape},
		{in: "src/\x00", kind: KindNUL},
		{in: strings.Repeat("n", 300), kind: KindTooLong},
	} {
		r, err := Canonicalize(ws, tc.in)
		if tc.kind != "" {
			var pe *PathError
			if !errors.As(err, &pe) || pe.Kind != tc.kind {
				t.Errorf("Canonicalize(%q) = %+v, %v; want kind %s", tc.in, r, err, tc.kind)
			}
			continue
		}
		if err != nil {
			t.Errorf("Canonicalize(%q): %v", tc.in, err)
			continue
		}
		if r.Abs != filepath.FromSlash(tc.abs) || r.Rel != tc.rel || r.Inside != tc.inside || r.Exists != tc.exists {
			t.Errorf("Canonicalize(%q) = %+v; want abs=%s rel=%q inside=%v exists=%v", tc.in, r, tc.abs, tc.rel, tc.inside, tc.exists)
		}
		if tc.exists {
			want, err := filepath.EvalSymlinks(filepath.Join(ws, tc.in))
			if err == nil && want != r.Abs && !strings.Contains(tc.in, "up/") {
				t.Errorf("Canonicalize(%q).Abs = %s, EvalSymlinks = %s", tc.in, r.Abs, want)
			}
		}
	}
}

func TestHasPathPrefix(t *testing.T) {
	for _, tc := range []struct {
		p, prefix string
		want      bool
	}{
		{"/a/b", "/a", true},
		{"/a", "/a", true},
		{"/ab", "/a", false},
		{"/a/b", "/", true},
		{"/x", "/a", false},
	} {
		if got := hasPathPrefix(tc.p, tc.prefix); got != tc.want {
			t.Errorf("hasPathPrefix(%q, %q) = %v", tc.p, tc.prefix, got)
		}
	}
}
