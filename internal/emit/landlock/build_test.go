package landlock

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/jp-policy/jp-policy/internal/emit/internal/emittest"
	"github.com/jp-policy/jp-policy/internal/policy"
)

func TestGolden(t *testing.T) {
	emittest.GoldenJSON(t, Build)
}

// Build is a pure function of the tool and the tree: two builds, with the
// commands map rebuilt in between, marshal to the same bytes.
func TestDeterministic(t *testing.T) {
	for _, sc := range emittest.Scenarios(t) {
		a, err := Build(sc.Tool)
		if err != nil {
			t.Fatal(err)
		}
		if sc.Tool.Access.Commands != nil {
			c := map[string]policy.CommandRule{}
			maps.Copy(c, sc.Tool.Access.Commands)
			sc.Tool.Access.Commands = c
		}
		b, err := Build(sc.Tool)
		if err != nil {
			t.Fatal(err)
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Errorf("%s: two builds differ", sc.Name)
		}
	}
}

// BenchmarkBuildSplit measures the split over a workspace of 40
// directories × 25 files with a narrowed .env in every directory.
func BenchmarkBuildSplit(b *testing.B) {
	root := emittest.TempRoot(b)
	var entries []string
	rules := []emittest.Rule{{Path: "", Caps: "rw"}}
	for d := range 40 {
		dir := fmt.Sprintf("ws/d%02d/", d)
		entries = append(entries, dir+".env")
		for f := range 25 {
			entries = append(entries, fmt.Sprintf("%sf%02d.go", dir, f))
		}
		rules = append(rules, emittest.Rule{Path: fmt.Sprintf("d%02d/.env", d)})
	}
	emittest.Tree(b, root, entries...)
	tool := emittest.Tool(b, "bench", filepath.Join(root, "ws"), rules)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Build(tool); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBound: a read-only rule inside a writable one is left to the
// namespaced path's read-only bind (Bound, BoundFS without it) only when
// it withholds nothing a read-only mount does not refuse, and exists.
func TestBound(t *testing.T) {
	root := emittest.TempRoot(t)
	emittest.Tree(t, root, "ws/go.mod", "ws/vendor/lib.go", "ws/bin/tool", "ws/ro/x", "ws/ro/in/y")
	ws := filepath.Join(root, "ws")
	for _, tc := range []struct {
		name  string
		rules []emittest.Rule
		bound []string
	}{
		{"read-only file and directory in a writable root", []emittest.Rule{{Path: "", Caps: "rw"}, {Path: "go.mod", Caps: "r"}, {Path: "vendor", Caps: "r"}}, []string{"go.mod", "vendor"}},
		{"withholds execute, which a read-only bind allows", []emittest.Rule{{Path: "", Caps: "rwx"}, {Path: "bin", Caps: "r"}}, nil},
		{"read-only with execute under an executable root", []emittest.Rule{{Path: "", Caps: "rwx"}, {Path: "bin", Caps: "rx"}}, []string{"bin"}},
		{"withholds read too", []emittest.Rule{{Path: "", Caps: "rw"}, {Path: "go.mod", Caps: "x"}}, nil},
		{"inside a read-only rule", []emittest.Rule{{Path: "", Caps: "rw"}, {Path: "ro", Caps: "r"}, {Path: "ro/in", Caps: "r"}}, []string{"ro"}},
		{"missing", []emittest.Rule{{Path: "", Caps: "rw"}, {Path: "go.sum", Caps: "r"}}, nil},
		{"a mask is not a bind", []emittest.Rule{{Path: "", Caps: "rw"}, {Path: "go.mod"}}, nil},
	} {
		m, err := Build(emittest.Tool(t, "t", ws, tc.rules))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var want []string
		for _, b := range tc.bound {
			want = append(want, filepath.Join(ws, b))
		}
		if !slices.Equal(m.Bound, want) {
			t.Errorf("%s: Bound %q, want %q", tc.name, m.Bound, want)
		}
		if (m.BoundFS != nil) != (len(want) > 0) {
			t.Errorf("%s: BoundFS %v with Bound %q", tc.name, m.BoundFS, m.Bound)
		}
	}
}
