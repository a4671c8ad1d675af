package policy

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The cache gives exactly the package functions' answers, on a tree with
// every kind of link the canonicaliser handles; the same lookups a second
// time reach no disk; and a Checker made through it still decides on the
// live disk.
func TestStatCacheMatchesDiskFixed(t *testing.T) {
	base, ws := statCacheTree(t)
	inputs := statCacheSeeds
	var rules []RuleInput
	for _, in := range inputs {
		rules = append(rules, RuleInput{Path: in}, RuleInput{Path: in, External: true})
	}
	c := NewStatCache()
	want := BindAll(ws, rules)
	for pass := range 2 {
		if got := c.BindAll(ws, rules); !reflect.DeepEqual(got, want) {
			t.Fatalf("pass %d: BindAll through the cache differs:\ngot  %+v\nwant %+v", pass, got, want)
		}
		for _, in := range inputs {
			gr, gerr := c.Canonicalize(ws, in)
			wr, werr := Canonicalize(ws, in)
			if !reflect.DeepEqual(gr, wr) || !reflect.DeepEqual(gerr, werr) {
				t.Fatalf("pass %d: Canonicalize(%q) through the cache = %+v, %v; want %+v, %v", pass, in, gr, gerr, wr, werr)
			}
		}
	}
	req, look := c.counts()
	if look*2 > req {
		t.Errorf("%d of %d lookups reached the disk: the second pass was not served from the cache", look, req)
	}

	p := &AccessPolicy{FS: []FsRule{{LexicalPath: "", Read: new(true)}, {LexicalPath: "secret"}}}
	ck, err := c.NewChecker(ws, p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.NewChecker(filepath.Join(base, "nowhere"), p); err == nil {
		t.Fatal("NewChecker through the cache accepted a missing root")
	}
	// A path created after the cache saw it missing: the checker sees it,
	// the cache does not until it is told to forget it.
	tree(t, base, "ws/late/f")
	if d := ck.CheckFS(Read, "late/f"); !d.Allowed || !strings.HasSuffix(d.Resolved, "late/f") {
		t.Fatalf("checker did not decide on the live disk: %+v", d)
	}
	if b, _ := c.BindRule(ws, "late/f", false); b.Kind != BoundMissing {
		t.Fatalf("the cache looked at the disk again: %+v", b)
	}
	c.Forget(filepath.Join(ws, "late"))
	if b, _ := c.BindRule(ws, "late/f", false); b.Kind != BoundFile {
		t.Fatalf("after Forget, late/f is %+v, want a file", b)
	}
}

var statCacheSeeds = []string{
	"", ".", "src", "src/lib.rs", "src/missing/deeper", "alias", "alias/key", "esc", "esc/ws/src",
	"fork", "fork/a/f", "fork/esc/x", "fork/back/lib.rs", "dangle", "dangle/x", "loop", "loop/x",
	"file.txt/below", "../up", "/abs", "a/../src", "./src//lib.rs/", "late", "late/f", "abslink/x",
}

func statCacheTree(t testing.TB) (base, ws string) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws = filepath.Join(base, "ws")
	tree(t, base,
		"ws/src/lib.rs", "ws/secret/key", "ws/file.txt", "ws/alias -> secret", "ws/esc -> ..",
		"ws/fork -> ../ext", "ext/a/f", "ext/esc -> ..", "ext/back -> ../ws/src",
		"ws/dangle -> ../nowhere", "ws/loop -> loop", "ws/abslink -> "+filepath.Join(base, "ext"),
	)
	return base, ws
}

// FuzzStatCache binds a sequence of rule paths (one per line, "!" before
// an external one) through one cache and alone, and asserts the answers
// are the same, whatever earlier paths the cache has already seen.
func FuzzStatCache(f *testing.F) {
	f.Add(strings.Join(statCacheSeeds, "\n"))
	f.Add("fork/a\n!fork\nfork/a/f\n!fork/esc\nesc/ws/esc/ws/src")
	f.Add("alias/key\nsecret/key\n!alias\nloop/x\n!dangle")
	_, ws := statCacheTree(f)
	f.Fuzz(func(t *testing.T, list string) {
		var rules []RuleInput
		for l := range strings.SplitSeq(list, "\n") {
			p, ext := strings.CutPrefix(l, "!")
			rules = append(rules, RuleInput{Path: p, External: ext})
		}
		if len(rules) > 64 {
			rules = rules[:64]
		}
		c := NewStatCache()
		for i, r := range rules {
			gb, gerr := c.BindRule(ws, r.Path, r.External)
			wb, werr := BindRule(ws, r.Path, r.External)
			if !reflect.DeepEqual(gb, wb) || !reflect.DeepEqual(gerr, werr) {
				t.Fatalf("rule %d %+v: cached %+v, %v; disk %+v, %v", i, r, gb, gerr, wb, werr)
			}
		}
		if got, want := c.BindAll(ws, rules), BindAll(ws, rules); !reflect.DeepEqual(got, want) {
			t.Fatalf("BindAll: cached %+v; disk %+v", got, want)
		}
	})
}
