package landlock

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ll "github.com/jp-policy/jp-policy/internal/plan/landlock"

	"github.com/jp-policy/jp-policy/internal/emit"
	"github.com/jp-policy/jp-policy/internal/emit/internal/emittest"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// governing are the rights on a directory that act on its entries
// (creating, removing, renaming them) rather than on what is beneath.
var governing = ll.RRemoveDir | ll.RRemoveFile | ll.RMakeDir | ll.RMakeReg | ll.RMakeSym | ll.RRefer |
	ll.RMakeChar | ll.RMakeBlock | ll.RMakeFifo | ll.RMakeSock

// oracle is an independent, deliberately naive RFD 076 evaluator over
// lexical paths: the longest matching rule path wins, the later on ties.
type oracle struct {
	paths []string // lexical, "" = root
	caps  []emit.Caps
}

func (o oracle) rights(rel string) ll.Rights {
	best, bestLen := -1, -1
	for i, p := range o.paths {
		match := p == "" || rel == p || strings.HasPrefix(rel, p+"/")
		n := len(strings.Split(p, "/"))
		if p == "" {
			n = 0
		}
		if match && n >= bestLen {
			best, bestLen = i, n
		}
	}
	if best < 0 {
		return 0
	}
	return RightsOf(o.caps[best])
}

// effective is what Landlock grants on rel: the union of the grants on it
// and on its ancestors.
func effective(root string, grants []ll.PathRule, rel string) ll.Rights {
	abs := root
	if rel != "" {
		abs = root + "/" + rel
	}
	var r ll.Rights
	for _, g := range grants {
		if abs == g.Path || strings.HasPrefix(abs, g.Path+"/") {
			x, _ := ll.ParseRights(g.Access)
			r |= x
		}
	}
	return r
}

var names = []string{"a", "b", ".env"}

// chooser is the source of random choices: a seeded PRNG for the
// property test, the fuzzer's bytes for FuzzSplit.
type chooser interface{ IntN(n int) int }

type byteChooser struct {
	data []byte
	i    int
}

func (b *byteChooser) IntN(n int) int {
	if b.i >= len(b.data) {
		return 0
	}
	b.i++
	return int(b.data[b.i-1]) % n
}

// TestSplitNeverWidens is the property the OS layer owes the policy: for
// random rule sets over random small trees, no existing path gets a
// Landlock right its winning rule does not give, no directory carries an
// entry-governing right that one of its entries' rules withholds, a rule
// path missing today is not reachable with more than its rule gives, and
// every existing file gets exactly its rule's file rights (the split may
// not buy safety by granting nothing). The same holds for MaskedFS with
// the masked subtrees taken out.
func TestSplitNeverWidens(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 76))
	for range 250 {
		checkRandom(t, rng)
	}
}

// FuzzSplit drives the same property from the fuzzer's bytes.
func FuzzSplit(f *testing.F) {
	f.Add([]byte{2, 1, 2, 0, 1, 2, 2, 1, 3, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0})
	f.Add([]byte{2, 2, 2, 2, 2, 2, 1, 1, 1, 4, 5, 0, 1, 0, 1, 0, 9, 1, 1, 1, 1, 1})
	f.Add([]byte{1, 1, 1, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		checkRandom(t, &byteChooser{data: data})
	})
}

func checkRandom(t *testing.T, rng chooser) {
	t.Helper()
	root := emittest.TempRoot(t)
	var dirs, files []string
	var grow func(rel string, depth int)
	grow = func(rel string, depth int) {
		for _, n := range names {
			child := n
			if rel != "" {
				child = rel + "/" + n
			}
			switch rng.IntN(3) {
			case 0: // absent
			case 1:
				files = append(files, child)
				if err := os.WriteFile(filepath.Join(root, child), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			case 2:
				dirs = append(dirs, child)
				if err := os.Mkdir(filepath.Join(root, child), 0o755); err != nil {
					t.Fatal(err)
				}
				if depth < 3 {
					grow(child, depth+1)
				}
			}
		}
	}
	grow("", 1)
	// Rule paths: any existing path, or a made-up missing one.
	candidates := append(append([]string{""}, dirs...), files...)
	candidates = append(candidates, "a/missing", "b/.env", "a/b/a")
	var rules []emittest.Rule
	for k := 1 + rng.IntN(5); k > 0; k-- {
		p := candidates[rng.IntN(len(candidates))]
		var cs string
		for _, c := range "rcudx" {
			if rng.IntN(2) == 0 {
				cs += string(c)
			}
		}
		rules = append(rules, emittest.Rule{Path: p, Caps: cs})
	}
	tool := emittest.Tool(t, "prop", root, rules)
	o := oracle{}
	for _, r := range tool.Access.FS {
		o.paths = append(o.paths, r.LexicalPath)
		o.caps = append(o.caps, emit.CapsOf(r))
	}
	crossCheckOracle(t, root, tool, o, append(append([]string{""}, dirs...), files...))
	m, err := Build(tool)
	if err != nil {
		t.Fatal(err)
	}
	desc := "rules " + describeRules(rules) + " dirs " + strings.Join(dirs, ",") + " files " + strings.Join(files, ",")
	checkGrants(t, "fs", root, m.FS, nil, o, rules, dirs, files, desc)
	if len(m.Masks) > 0 {
		var masked []string
		for _, p := range m.Masks {
			masked = append(masked, strings.TrimPrefix(strings.TrimPrefix(p, root), "/"))
		}
		checkGrants(t, "masked_fs", root, m.MaskedFS, masked, o, rules, dirs, files, desc)
	} else if m.MaskedFS != nil {
		t.Fatalf("masked_fs without masks; %s", desc)
	}
}

func checkGrants(t *testing.T, which, root string, grants []ll.PathRule, masked []string, o oracle, rules []emittest.Rule, dirs, files []string, desc string) {
	t.Helper()
	hidden := func(p string) bool {
		for _, m := range masked {
			if p == m || strings.HasPrefix(p, m+"/") {
				return true
			}
		}
		return false
	}
	isDir := map[string]bool{"": true}
	for _, d := range dirs {
		isDir[d] = true
	}
	for _, p := range append(append([]string{""}, dirs...), files...) {
		if hidden(p) {
			continue
		}
		eff, want := effective(root, grants, p), o.rights(p)
		if !isDir[p] {
			eff &= ll.FileRights
			if eff != want&ll.FileRights {
				t.Fatalf("%s: file %q: effective %v, rule gives %v; %s", which, p, eff.Names(), (want & ll.FileRights).Names(), desc)
			}
		}
		if eff&^want != 0 {
			t.Fatalf("%s: %q: effective %v exceeds rule's %v; %s", which, p, eff.Names(), want.Names(), desc)
		}
	}
	// A rule path missing today may be created later, as a file or a
	// directory: whatever its nearest existing ancestor carries will
	// reach it then.
	exists := map[string]bool{"": true}
	for _, p := range append(append([]string{}, dirs...), files...) {
		exists[p] = true
	}
	for _, r := range rules {
		if exists[r.Path] {
			continue
		}
		a := r.Path
		for !exists[a] {
			if a = filepath.Dir(a); a == "." {
				a = ""
			}
		}
		if !isDir[a] || hidden(a) {
			continue // beneath a file or a mask: cannot come to exist
		}
		if eff := effective(root, grants, a); eff&^o.rights(r.Path) != 0 {
			t.Fatalf("%s: missing %q: its ancestor %q carries %v, its rule gives %v; %s", which, r.Path, a, eff.Names(), o.rights(r.Path).Names(), desc)
		}
	}
	// Entry-governing rights on a directory must be allowed by the rule
	// of every entry they could act on, existing or named by a rule. A
	// mask is a mount point: it cannot be removed or renamed.
	children := append(append([]string{}, dirs...), files...)
	for _, r := range rules {
		if r.Path != "" {
			children = append(children, r.Path)
		}
	}
	for _, c := range children {
		parent := filepath.Dir(c)
		if parent == "." {
			parent = ""
		}
		if !isDir[parent] || hidden(c) {
			continue
		}
		g := effective(root, grants, parent) & governing
		if g&^o.rights(c) != 0 {
			t.Fatalf("%s: dir %q carries %v over entry %q whose rule gives %v; %s", which, parent, g.Names(), c, o.rights(c).Names(), desc)
		}
	}
}

// crossCheckOracle keeps the test's naive oracle honest against the
// policy package's own matcher (the cooperative check's decision).
func crossCheckOracle(t *testing.T, root string, tool emit.Tool, o oracle, paths []string) {
	t.Helper()
	c, err := policy.NewChecker(root, &tool.Access)
	if err != nil {
		t.Fatalf("policy rejects the generated rules: %v", err)
	}
	for _, p := range paths {
		key := p
		want := o.rights(p)
		for _, k := range policy.Capabilities {
			_, allowed := c.DecideFS(k, key)
			if allowed != (want&ll.CapabilityRights[k] != 0) {
				t.Fatalf("oracle and policy.Checker disagree on %s of %q", k, p)
			}
		}
	}
}

func describeRules(rs []emittest.Rule) string {
	var s []string
	for _, r := range rs {
		p := r.Path
		if p == "" {
			p = "."
		}
		s = append(s, p+"="+r.Caps)
	}
	return strings.Join(s, " ")
}
