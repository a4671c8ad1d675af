package mount

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse: no input panics; any accepted spec has mode ro or rw, rw only
// with a tool, and a NAME that resolves lexically inside the workspace
// and outside .jp/.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"fork=~/code/forks/serde-yaml", "fs_modify_file:fork=~/code/forks/x:rw",
		`fs_read_file:fork=C:\code\forks\x:ro`, "../baz=/x", "a/../../b=/x:ro",
		".jp/x=/y", "t:=/x", "=", "fork", "/ws/abs=/x",
	} {
		f.Add(s)
	}
	root := filepath.Join(string(filepath.Separator)+"fuzz", "ws")
	cwd := filepath.Join(root, "sub")
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := Parse(s)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("Parse error is %T, want *Error", err)
			}
			return
		}
		if sp.Mode != ReadOnly && sp.Mode != ReadWrite {
			t.Fatalf("mode %q", sp.Mode)
		}
		if sp.Mode == ReadWrite && sp.Tool == "" {
			t.Fatal("rw without tool accepted")
		}
		if sp.Tool != "" && !IsToolName(sp.Tool) {
			t.Fatalf("tool %q accepted", sp.Tool)
		}
		rel, err := ResolveName(sp.Name, cwd, root)
		if err != nil {
			return
		}
		abs := filepath.Join(root, filepath.FromSlash(rel))
		inner, rerr := filepath.Rel(root, abs)
		if rerr != nil || inner == "." || inner == ".." || strings.HasPrefix(inner, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			t.Fatalf("name %q resolved to %q, outside %s", sp.Name, rel, root)
		}
		if first, _, _ := strings.Cut(rel, "/"); strings.EqualFold(first, ManagedDir) {
			t.Fatalf("name %q resolved into .jp: %q", sp.Name, rel)
		}
		if strings.Contains(rel, "\\") && filepath.Separator == '\\' {
			t.Fatalf("rule path %q is not slash-separated", rel)
		}
	})
}

// FuzzBlocks: for any valid TOML file that AppendBlocks accepts, the
// appended blocks are found again, and removing them gives back the
// original text (plus the newline appended to an unterminated last line).
func FuzzBlocks(f *testing.F) {
	f.Add("[conversation.tools.t]\nsource = \"local\"\n", "fork")
	f.Add("# c\na = 1", "a/b")
	f.Add("", "x y")
	f.Add("[[conversation.tools.t.access.fs]]\npath = \"src\"\n", `q"\`)
	f.Fuzz(func(t *testing.T, src, rulePath string) {
		if _, err := parseTOML([]byte(src)); err != nil {
			return
		}
		if rulePath == "" || strings.ContainsFunc(rulePath, func(r rune) bool { return r < 0x20 || r == 0x7f }) || !utf8.ValidString(rulePath) {
			return
		}
		blocks := []Block{{Tool: "t", Rule: WorkspaceDefaultRule()}, {Tool: "t", Rule: MountRule(rulePath, ReadWrite)}}
		out, err := AppendBlocks("f.toml", []byte(src), blocks)
		if err != nil {
			return
		}
		found := FindBlocks(out)
		var ours []Found
		for _, b := range found {
			if b.Line > len(splitLines([]byte(src))) {
				ours = append(ours, b)
			}
		}
		if len(ours) != 2 || !ours[0].Default || ours[1].RulePath != rulePath {
			t.Fatalf("appended blocks not found: %+v in\n%s", found, out)
		}
		want := src
		if want != "" && !strings.HasSuffix(want, "\n") {
			want += "\n"
		}
		if got := string(RemoveBlocks(out, ours)); got != want {
			t.Fatalf("remove gave %q, want %q", got, want)
		}
	})
}
