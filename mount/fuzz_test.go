package mount

import (
	"path/filepath"
	"strings"
	"testing"
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
