package policy_test

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/jp-policy/jp-policy/internal/policy"
	"github.com/jp-policy/jp-policy/internal/policytest"
)

// TestPropertyConfinement checks, over random trees and policies, that
// whatever is allowed resolves inside the workspace or inside the approved
// target of the external rule that matched; that an existing target's
// resolution agrees with filepath.EvalSymlinks; and that the trie agrees
// with a linear longest-prefix scan (RFD 076's reference algorithm).
func TestPropertyConfinement(t *testing.T) {
	forRandomWorlds(t, func(seed int, _ *rand.Rand, w policytest.World) {
		c, err := policy.NewChecker(w.Root, w.Policy)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, in := range w.Inputs {
			for _, cp := range policy.Capabilities {
				d := c.CheckFS(cp, in)
				checkInvariant(t, seed, w, c, cp, in, d)
			}
		}
	})
}

// forRandomWorlds runs f on 40 random workspaces (10 with -short), each
// in its own directory, with the generator that made it.
func forRandomWorlds(t *testing.T, f func(seed int, r *rand.Rand, w policytest.World)) {
	seeds := 40
	if testing.Short() {
		seeds = 10
	}
	for seed := range seeds {
		r := rand.New(rand.NewSource(int64(seed)))
		base, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		w, err := policytest.New(r, base)
		if err != nil {
			t.Fatal(err)
		}
		f(seed, r, w)
	}
}

func checkInvariant(t *testing.T, seed int, w policytest.World, c *policy.Checker, cp policy.Capability, in string, d policy.Decision) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf("seed %d, %s %q: "+format, append([]any{seed, cp, in}, args...)...)
	}
	if d.Allowed != (d.Err == nil) {
		fail("allowed=%v with err=%v", d.Allowed, d.Err)
	}
	res, cerr := policy.Canonicalize(w.Root, in)
	if cerr == nil && res.Exists {
		real, err := filepath.EvalSymlinks(filepath.Join(w.Root, filepath.FromSlash(res.Lexical)))
		if err == nil && real != res.Abs && !hasDotDotThroughLink(in) {
			fail("Canonicalize = %s, EvalSymlinks = %s", res.Abs, real)
		}
	}
	if !d.Allowed {
		return
	}
	if cerr != nil {
		fail("allowed but Canonicalize failed: %v", cerr)
		return
	}
	if d.Resolved != res.Abs {
		fail("Resolved %s != Canonicalize %s", d.Resolved, res.Abs)
	}
	if res.Inside {
		if !under(res.Abs, w.Root) {
			fail("inside but %s not under root", res.Abs)
		}
	} else {
		fr, ok := d.Rule.(policy.FsRule)
		if !ok || !fr.External || fr.ApprovedTarget == nil || !under(res.Abs, *fr.ApprovedTarget) {
			fail("allowed outside the workspace (%s) by %+v", res.Abs, d.Rule)
		}
	}
	// The real file system agrees: Resolved is already canonical up to
	// its deepest existing ancestor, so the operation lands exactly there
	// (and the containment checks above hold for what the OS will touch).
	anc := existingAncestor(res.Abs)
	if real, err := filepath.EvalSymlinks(anc); err == nil && real != anc {
		fail("resolved path %s is not canonical: its ancestor %s resolves to %s", res.Abs, anc, real)
	}
	// Linear reference for the winning rule.
	if w.Policy != nil && len(w.Policy.FS) > 0 {
		key := res.Rel
		if !res.Inside {
			key = res.Lexical
		}
		want := linearMatch(w.Policy.FS, key)
		if want < 0 || w.Policy.FS[want] != d.Rule.(policy.FsRule) || !w.Policy.FS[want].Grants(cp) {
			fail("trie picked %+v, linear scan picked %d", d.Rule, want)
		}
	}
}

// hasDotDotThroughLink: lexical ".." collapse (RFD 076 step 2) differs
// from the kernel's when ".." follows a symlink; the input is then
// resolved as written lexically, which is what the tool will open via
// Resolved, so only compare inputs without "..".
func hasDotDotThroughLink(in string) bool {
	return filepath.Clean("/"+in) != "/"+trimSlashes(in) || contains(in, "..")
}

func trimSlashes(s string) string {
	for len(s) > 0 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	return s
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func under(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !(len(rel) >= 3 && rel[:3] == "../") && !filepath.IsAbs(rel)
}

func existingAncestor(p string) string {
	for {
		if _, err := os.Lstat(p); err == nil {
			return p
		}
		parent := filepath.Dir(p)
		if parent == p {
			return p
		}
		p = parent
	}
}

func linearMatch(rules []policy.FsRule, key string) int {
	best, bestN := -1, -1
	for i, r := range rules {
		lex, err := policy.LexicalRel(r.LexicalPath)
		if err != nil {
			continue
		}
		n := 0
		if lex != "" {
			n = len(splitSlash(lex))
			if !(key == lex || len(key) > len(lex) && key[:len(lex)] == lex && key[len(lex)] == '/') {
				continue
			}
		}
		if n >= bestN {
			best, bestN = i, n
		}
	}
	return best
}

func splitSlash(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '/' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

// Random worlds (links inside, outside, dangling, looping): binding every
// input through one StatCache, ordinary and external, gives exactly what
// binding on the disk gives, and so does a checker made through it.
func TestPropertyStatCacheMatchesDisk(t *testing.T) {
	forRandomWorlds(t, func(seed int, r *rand.Rand, w policytest.World) {
		var rules []policy.RuleInput
		for _, in := range w.Inputs {
			rules = append(rules, policy.RuleInput{Path: in, External: r.Intn(4) == 0})
		}
		c := policy.NewStatCache()
		want := policy.BindAll(w.Root, rules)
		for pass := range 2 {
			if got := c.BindAll(w.Root, rules); !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d pass %d: cached BindAll differs:\ngot  %+v\nwant %+v", seed, pass, got, want)
			}
		}
		gc, gerr := c.NewChecker(w.Root, w.Policy)
		wc, werr := policy.NewChecker(w.Root, w.Policy)
		if fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Fatalf("seed %d: NewChecker through the cache: %v; on the disk: %v", seed, gerr, werr)
		}
		if werr != nil {
			return
		}
		for _, in := range w.Inputs {
			for _, cp := range policy.Capabilities {
				if g, w := gc.CheckFS(cp, in), wc.CheckFS(cp, in); !reflect.DeepEqual(g, w) {
					t.Fatalf("seed %d: CheckFS(%v, %q): %+v vs %+v", seed, cp, in, g, w)
				}
			}
		}
	})
}
