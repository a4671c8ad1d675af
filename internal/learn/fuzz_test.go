package learn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// fuzzPaths are the paths a fuzzed run touches: existing files and
// directories, and names that are gone by the end of the run.
var fuzzPaths = []string{
	"", "a", "a/x", "a/y", "a/b", "a/b/z", "a/b/gone", "c.txt", "gone.tmp",
	"d", "d/1", "d/2", "d/3", "d/4", "d/5", ".jp", ".jp/config.toml", ".git", ".git/config", ".git/hooks",
}

// FuzzPropose: for any set of observed accesses, Propose returns rules
// that policy loads, that allow every observed access inside the
// workspace (checked here with a checker of our own, not Propose's), that
// sit on an observed path or a directory above one, and that grant no
// kind of capability the run never used.
func FuzzPropose(f *testing.F) {
	f.Add([]byte{1, 1, 2, 2, 3, 4})
	f.Add([]byte{0, 1, 6, 2, 6, 8, 8, 31, 9, 2, 10, 2, 11, 2, 12, 2})
	f.Add([]byte{18, 4, 19, 2, 0, 16, 17, 1})
	root := workspace(f, "a/x", "a/y", "a/b/z", "c.txt", "d/1", "d/2", "d/3", "d/4", "d/5", ".jp/config.toml", ".git/config", ".git/hooks/")
	f.Fuzz(func(t *testing.T, data []byte) {
		var obs Observations
		var used Op
		var eff []Op // each observation's op as Propose must allow it
		for i := 0; i+1 < len(data); i += 2 {
			p := fuzzPaths[int(data[i])%len(fuzzPaths)]
			op := Op(data[i+1]) & (OpRead | OpCreate | OpUpdate | OpDelete | OpExecute)
			if op == 0 {
				continue
			}
			obs.Files = append(obs.Files, FileAccess{filepath.Join(root, filepath.FromSlash(p)), op})
			if fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p))); err == nil && !fi.IsDir() && inRepoOrJP(p) && op&OpCreate != 0 {
				// O_CREAT on a file that is there, in .git or .jp, is
				// allowed as the update it is (attack_learn_create_git).
				op = op&^OpCreate | OpUpdate
			}
			eff = append(eff, op)
			if !jpOwn(p) {
				used |= op
			}
		}
		prop, err := Propose(obs, Context{Root: root, Collapse: 3, Protect: []string{".jp", ".git/hooks", ".git/config"}})
		if err != nil {
			t.Fatalf("Propose: %v", err)
		}
		c, err := policy.NewChecker(root, &policy.AccessPolicy{FS: WireRules(prop.FS)})
		if err != nil {
			t.Fatalf("policy refuses the proposal: %v", err)
		}
		for i, fa := range obs.Files {
			fa.Op = eff[i]
			rel, _ := within(root, fa.Path)
			if jpOwn(rel) {
				continue
			}
			in := rel
			if in == "" {
				in = "."
			}
			for _, cp := range fa.Op.Capabilities() {
				if d := c.CheckFS(cp, in); !d.Allowed {
					t.Errorf("%s on %q observed but denied: %v (rules %s)", cp, in, d.Err, rulesText(prop.FS))
				}
			}
		}
		for _, r := range prop.FS {
			if r.Op&^used != 0 {
				t.Errorf("rule %q grants %s, never used (used: %s)", r.Path, r.Op&^used, used)
			}
			protective := (r.Path == ".jp" || r.Path == ".git/hooks" || r.Path == ".git/config") && r.Op&(OpCreate|OpUpdate|OpDelete) == 0
			if !protective && !aboveSomeObserved(root, r.Path, obs.Files) {
				t.Errorf("rule %q is on no observed path nor above one", r.Path)
			}
		}
	})
}

func aboveSomeObserved(root, rule string, fas []FileAccess) bool {
	for _, fa := range fas {
		rel, _ := within(root, fa.Path)
		if rel == rule || rule == "" || strings.HasPrefix(rel, rule+"/") {
			return true
		}
	}
	return false
}
