package config

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestGlob(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a/x.toml", "a/b/y.toml", "c/z.json", "top.toml"} {
		write(t, filepath.Join(dir, f), "")
	}
	got, err := jpGlob(filepath.Join(dir, "**", "*.toml"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "a", "b", "y.toml"), filepath.Join(dir, "a", "x.toml"), filepath.Join(dir, "top.toml")}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

// TestGlobBracesLiteral: JP's glob has no {a,b} alternation.
func TestGlobBracesLiteral(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "x{1,2}.toml"), "")
	write(t, filepath.Join(dir, "x1.toml"), "")
	got, err := jpGlob(filepath.Join(dir, "x{1,2}*"))
	if err != nil || len(got) != 1 || filepath.Base(got[0]) != "x{1,2}.toml" {
		t.Fatalf("got %v, %v", got, err)
	}
}

// TestGlobOrderIsJPs: JP's glob (the Rust glob crate, util.rs
// load_optional_paths) walks depth-first with each directory's entries
// sorted by name. Sorting whole path strings would put "a-b/x.toml" before
// "a/x.toml" and "tools.toml" before "tools/x.toml", since '-' and '.'
// sort before '/'.
func TestGlobOrderIsJPs(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a/x.toml", "a-b/x.toml", "tools.toml", "tools/x.toml", "tools/a/y.toml", "z.toml"} {
		write(t, filepath.Join(dir, f), "")
	}
	got, err := jpGlob(filepath.Join(dir, "**", "*.toml"))
	if err != nil {
		t.Fatal(err)
	}
	var rel []string
	for _, g := range got {
		r, _ := filepath.Rel(dir, g)
		rel = append(rel, filepath.ToSlash(r))
	}
	want := []string{"a/x.toml", "a-b/x.toml", "tools/a/y.toml", "tools/x.toml", "tools.toml", "z.toml"}
	if strings.Join(rel, " ") != strings.Join(want, " ") {
		t.Fatalf("got %v, want %v", rel, want)
	}
}

// TestGlobIsRustGlobs: the syntax of JP's glob crate, where it is not
// doublestar's. Each row names files; want lists what JP's glob yields.
func TestGlobIsRustGlobs(t *testing.T) {
	for _, tc := range []struct {
		name    string
		files   []string
		dirs    []string
		pattern string
		want    []string
	}{
		{"backslash is a character", []string{`x\evil.toml`, "x*.toml"}, nil, `x\*.toml`, []string{`x\evil.toml`}},
		{"caret is a member", []string{"^.toml", "a.toml", "b.toml"}, nil, "[^a].toml", []string{"^.toml", "a.toml"}},
		{"bang negates", []string{"a.toml", "b.toml"}, nil, "[!a].toml", []string{"b.toml"}},
		{"bracket first is a member", []string{"].toml", "a.toml"}, nil, "[]].toml", []string{"].toml"}},
		{"not bracket", []string{"].toml", "a.toml"}, nil, "[!]].toml", []string{"a.toml"}},
		{"range", []string{"a.toml", "m.toml", "z.toml"}, nil, "[a-m].toml", []string{"a.toml", "m.toml"}},
		{"star matches a leading dot", []string{".h.toml", "v.toml"}, nil, "*.toml", []string{".h.toml", "v.toml"}},
		{"directories match", []string{"a.toml"}, []string{"d.toml"}, "*.toml", []string{"a.toml", "d.toml"}},
		{"dot pattern yields . and ..", []string{".k.toml"}, nil, ".*", []string{"..", ".", ".k.toml"}},
		{"trailing ** yields directories only", []string{"f.toml", "d/g.toml"}, []string{"d/e"}, "**", []string{"d", "d/e"}},
		{"question mark is one character", []string{"ab.toml", "a.toml", "é.toml"}, nil, "?.toml", []string{"a.toml", "é.toml"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tc.files {
				write(t, filepath.Join(dir, f), "")
			}
			for _, d := range tc.dirs {
				if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			got, err := jpGlob(dir + "/" + tc.pattern)
			if err != nil {
				t.Fatal(err)
			}
			var rel []string
			for _, g := range got {
				rel = append(rel, strings.TrimPrefix(g, dir+"/"))
			}
			if strings.Join(rel, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("%s: got %q, want %q", tc.pattern, rel, tc.want)
			}
		})
	}
}

// TestGlobPatternErrors: patterns JP's glob crate refuses (JP does not
// start).
func TestGlobPatternErrors(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"a[.toml", "***", "a**/x", "x/**b", "[!]"} {
		if _, err := jpGlob(dir + "/" + p); err == nil {
			t.Errorf("%q: no error", p)
		}
	}
	for _, p := range []string{"**/x", "[[]", "a]b", "{a,b}"} {
		if _, err := jpGlob(dir + "/" + p); err != nil {
			t.Errorf("%q: %v", p, err)
		}
	}
}

func TestGlobBounded(t *testing.T) {
	dir := t.TempDir()
	for i := range 5 {
		write(t, filepath.Join(dir, strconv.Itoa(i)+".toml"), "")
	}
	g := &globWalk{pats: []*globPat{{toks: []globTok{{kind: '*'}}}}, seen: maxGlobEntries}
	g.fill(0, globEntry{path: dir, dir: true})
	if !errors.Is(g.err, errGlobTooBig) {
		t.Fatalf("err = %v", g.err)
	}
	if want := strconv.Itoa(maxGlobEntries); !strings.Contains(errGlobTooBig.Error(), want) {
		t.Fatalf("the message %q does not name the bound %s", errGlobTooBig, want)
	}
}

// TestRustExtensionCandidates: Rust's set_extension, as JP's
// load_config_file_at_path applies it to a path that is not a file.
func TestRustExtensionCandidates(t *testing.T) {
	exts := []string{".toml", ".json"}
	for in, want := range map[string]string{
		"/w/tools/x.toml": "/w/tools/x.toml /w/tools/x.toml /w/tools/x.json",
		"/w/conf.d/.":     "/w/conf.d/. /w/conf.toml /w/conf.json",
		"/w/conf.d/..":    "/w/conf.d/..",
		"/w/.hidden":      "/w/.hidden /w/.hidden.toml /w/.hidden.json",
		"/w/a.b.c":        "/w/a.b.c /w/a.b.toml /w/a.b.json",
		"/w/sub":          "/w/sub /w/sub.toml /w/sub.json",
		"/":               "/",
	} {
		if got := strings.Join(rustExtensionCandidates(in, exts), " "); got != want {
			t.Errorf("%s: got %s, want %s", in, got, want)
		}
	}
}

// TestFindInLoadPathDotName: `--cfg .dev` finds .dev.toml, as Rust's
// with_extension reads ".dev" (a name without an extension), not a file
// named ".toml".
func TestFindInLoadPathDotName(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, ".toml"), "")
	write(t, filepath.Join(dir, ".dev.toml"), "")
	write(t, filepath.Join(dir, "dev.local.json"), "")
	for name, want := range map[string]string{".dev": ".dev.toml", "dev.local": "", "dev.local.toml": "dev.local.json", "nothing": ""} {
		got := (&loader{l: &Loaded{}}).findInLoadPath(dir, name)
		if want != "" {
			want = filepath.Join(dir, want)
		}
		if got != want {
			t.Errorf("%s: got %q, want %q", name, got, want)
		}
	}
}

// FuzzGlobPattern: compiling and matching never panic; a pattern without
// `*`, `?` or `[` is a literal that matches itself and nothing else.
func FuzzGlobPattern(f *testing.F) {
	for _, s := range []string{"*.toml", "[!]]x", "[^a]", "a**", "**", "[a-", "x\\*", ".*", "é?", "[]"} {
		f.Add(s, "name.toml")
	}
	f.Fuzz(func(t *testing.T, pat, name string) {
		if !utf8.ValidString(pat) || !utf8.ValidString(name) {
			return // JP's patterns and the names it matches are str: expand and jpGlob check
		}
		p, err := compileGlobComponent(pat)
		if err != nil {
			return
		}
		got := p.match(name)
		if !strings.ContainsAny(pat, "*?[") {
			lit, ok := p.literal()
			if !ok || lit != string([]rune(pat)) || got != (name == pat) {
				t.Fatalf("literal %q: literal()=%q,%v match(%q)=%v", pat, lit, ok, name, got)
			}
		}
	})
}
