package emittest

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/emit"
	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// Update rewrites golden files instead of comparing against them.
var Update = flag.Bool("update", false, "rewrite golden files")

// Tree creates the given entries under root: a name ending in "/" is a
// directory, "name -> target" a symlink, anything else an empty file.
func Tree(t testing.TB, root string, entries ...string) {
	t.Helper()
	for _, e := range entries {
		if name, target, ok := strings.Cut(e, " -> "); ok {
			p := filepath.Join(root, name)
			must(t, os.MkdirAll(filepath.Dir(p), 0o755))
			must(t, os.Symlink(target, p))
			continue
		}
		p := filepath.Join(root, e)
		if strings.HasSuffix(e, "/") {
			must(t, os.MkdirAll(p, 0o755))
			continue
		}
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, nil, 0o644))
	}
}

// TempRoot is a canonical temporary directory (macOS's /var is a link).
func TempRoot(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	return d
}

// Rule is a test rule: a lexical path with capabilities, and for an
// external rule its absolute target.
type Rule struct {
	Path     string
	Caps     string // letters r c u d x, or "w" for create+update+delete
	External string // absolute approved target; "" for ordinary rules
}

// Tool builds an emit.Tool the way the compiler does: Abs is the root
// joined with the lexical path (or the approved target), Kind from disk.
func Tool(t testing.TB, name, root string, rules []Rule) emit.Tool {
	t.Helper()
	tool := emit.Tool{Name: name, Root: root}
	for i, r := range rules {
		fr := policy.FsRule{LexicalPath: r.Path}
		for _, c := range r.Caps {
			v := true
			switch c {
			case 'r':
				fr.Read = &v
			case 'w':
				fr.Write = &v
			case 'c':
				fr.Create = &v
			case 'u':
				fr.Update = &v
			case 'd':
				fr.Delete = &v
			case 'x':
				fr.Execute = &v
			}
		}
		abs := root
		if r.Path != "" {
			abs = filepath.Join(root, filepath.FromSlash(r.Path))
		}
		g := plan.Grant{Index: i, Abs: abs}
		if r.External != "" {
			fr.External = true
			target := r.External
			fr.ApprovedTarget = &target
			g.Link, g.Abs = abs, target
		}
		g.Kind = KindOf(g.Abs)
		tool.Access.FS = append(tool.Access.FS, fr)
		tool.Grants = append(tool.Grants, g)
	}
	return tool
}

// KindOf reports what p is on disk.
func KindOf(p string) plan.PathKind {
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return plan.KindMissing
	case fi.IsDir():
		return plan.KindDir
	default:
		return plan.KindFile
	}
}

// Golden compares got (with root replaced by $ROOT) against
// testdata/<name>, or rewrites it under -update.
func Golden(t testing.TB, name, root string, got []byte) {
	t.Helper()
	got = bytes.ReplaceAll(got, []byte(root), []byte("$ROOT"))
	path := filepath.Join("testdata", name)
	if *Update {
		must(t, os.MkdirAll(filepath.Dir(path), 0o755))
		tmp := path + ".tmp"
		must(t, os.WriteFile(tmp, got, 0o644))
		must(t, os.Rename(tmp, path))
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden (run with -update to accept):\n--- got ---\n%s", path, got)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// GoldenJSON builds every scenario with build and compares the indented
// JSON of the result with testdata/<scenario>.json.
func GoldenJSON[M any](t *testing.T, build func(emit.Tool) (M, error)) {
	for _, sc := range Scenarios(t) {
		t.Run(sc.Name, func(t *testing.T) {
			m, err := build(sc.Tool)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.MarshalIndent(m, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			Golden(t, sc.Name+".json", sc.Root, append(b, '\n'))
		})
	}
}
