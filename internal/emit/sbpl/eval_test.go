package sbpl

import (
	"math/rand/v2"
	"path"
	"regexp"
	"strings"
	"testing"

	sbplan "github.com/jp-policy/jp-policy/internal/plan/sbpl"

	"github.com/jp-policy/jp-policy/internal/emit"
	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// allowed evaluates the profile's allow rules for one operation on one
// path the way the sandbox does for the filters the emitter uses:
// subpath, literal, regex, require-all, require-any and require-not, with
// (param NAME) read from params. (The emitter writes no deny rule for
// file reads, writes or exec, which TestVocabulary checks, so under
// (deny default) a path is allowed exactly when some allow rule matches.)
func allowed(forms []node, op, p string, params map[string]string) bool {
	for _, f := range forms {
		if head(f) != "allow" || len(f.list) < 2 || !opMatches(f.list[1].atom, op) {
			continue
		}
		filters := f.list[2:]
		if len(filters) == 0 {
			return true
		}
		for _, flt := range filters {
			if match(flt, p, params) {
				return true
			}
		}
	}
	return false
}

// value is a filter's string argument: a literal, or a parameter.
func value(n node, params map[string]string) (string, bool) {
	if n.str != nil {
		return *n.str, true
	}
	if head(n) == "param" && len(n.list) == 2 && n.list[1].str != nil {
		v, ok := params[*n.list[1].str]
		return v, ok
	}
	return "", false
}

func opMatches(rule, op string) bool {
	if before, ok := strings.CutSuffix(rule, "*"); ok {
		return strings.HasPrefix(op, before)
	}
	return rule == op
}

func match(f node, p string, params map[string]string) bool {
	switch head(f) {
	case "subpath":
		s, ok := value(f.list[1], params)
		return ok && (p == s || strings.HasPrefix(p, s+"/"))
	case "literal":
		s, ok := value(f.list[1], params)
		return ok && p == s
	case "regex":
		return regexp.MustCompile(*f.list[1].str).MatchString(p)
	case "require-all":
		for _, c := range f.list[1:] {
			if !match(c, p, params) {
				return false
			}
		}
		return true
	case "require-any":
		for _, c := range f.list[1:] {
			if match(c, p, params) {
				return true
			}
		}
		return false
	case "require-not":
		return !match(f.list[1], p, params)
	}
	return false // filters on non-path attributes never match a path query
}

// opFor is the SBPL operation that exercises each capability.
var opFor = map[policy.Capability]string{
	policy.Read:    "file-read-data",
	policy.Create:  "file-write-create",
	policy.Update:  "file-write-data",
	policy.Delete:  "file-write-unlink",
	policy.Execute: "process-exec",
}

// TestProfileMatchesPolicy: for random rule sets, the profile allows each
// capability on each path exactly when the policy's winning rule does
// (longest lexical prefix, later rule on ties), in both directions.
func TestProfileMatchesPolicy(t *testing.T) {
	pool := []string{"", "a", "a/b", "a/b/c", ".env", "a/.env", "b", "b/x y", `b/q"\`}
	rng := rand.New(rand.NewPCG(75, 76))
	for range 400 {
		tool := emit.Tool{Name: "prop", Root: "/ws"}
		n := 1 + rng.IntN(5)
		for i := range n {
			lex := pool[rng.IntN(len(pool))]
			r := policy.FsRule{LexicalPath: lex}
			for _, pp := range []**bool{&r.Read, &r.Write, &r.Create, &r.Update, &r.Delete, &r.Execute} {
				switch rng.IntN(3) {
				case 1:
					v := true
					*pp = &v
				case 2:
					v := false
					*pp = &v
				}
			}
			abs := path.Join("/ws", lex)
			kind := plan.KindDir
			if strings.HasSuffix(lex, ".env") && rng.IntN(2) == 0 {
				kind = plan.KindFile
			} else if rng.IntN(4) == 0 {
				kind = plan.KindMissing
			}
			tool.Access.FS = append(tool.Access.FS, r)
			tool.Grants = append(tool.Grants, plan.Grant{Index: i, Abs: abs, Kind: kind})
		}
		prof, _, err := Build(tool)
		if err != nil {
			t.Fatal(err)
		}
		forms, err := readAll(prof)
		if err != nil {
			t.Fatalf("parse: %v\n%s", err, prof)
		}
		var queries []string
		for _, p := range pool {
			queries = append(queries, p, path.Join(p, "new"))
		}
		checkAgainstPolicy(t, tool, forms, prof, queries)
	}
}

// checkAgainstPolicy asserts that for every query (a workspace-relative
// path) and capability the profile allows exactly what the policy's
// winning rule grants.
func checkAgainstPolicy(t *testing.T, tool emit.Tool, forms []node, prof []byte, queries []string) {
	t.Helper()
	for _, q := range queries {
		win := -1
		winLen := -1
		for i, r := range tool.Access.FS {
			lp := r.LexicalPath
			n := strings.Count(lp, "/") + 1
			if lp == "" {
				n = 0
			}
			if (lp == "" || q == lp || strings.HasPrefix(q, lp+"/")) && n >= winLen {
				win, winLen = i, n
			}
		}
		abs := path.Join(tool.Root, q)
		for _, c := range policy.Capabilities {
			want := win >= 0 && tool.Access.FS[win].Grants(c)
			if win >= 0 && tool.Grants[win].Kind == plan.KindFile && abs != tool.Grants[win].Abs {
				// A file rule cannot cover paths beneath it; the
				// profile's literal grants them nothing.
				want = false
			}
			// The worst case for the run's parameters: the program the
			// launcher starts and the scratch directory are the very
			// path asked about. The policy must still decide alone.
			params := map[string]string{sbplan.ProgramParam: abs, sbplan.ProgramRealParam: abs, sbplan.TmpDirParam: abs}
			if got := allowed(forms, opFor[c], abs, params); got != want {
				t.Fatalf("%s on %q: profile %v, policy %v (winner fs[%d])\n%s", c, q, got, want, win, prof)
			}
		}
	}
}
