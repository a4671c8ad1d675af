package landlock

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
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
