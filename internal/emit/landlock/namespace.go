package landlock

import (
	"path/filepath"
	"slices"
	"sort"

	"github.com/jp-policy/jp-policy/internal/emit"
	ll "github.com/jp-policy/jp-policy/internal/plan/landlock"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// nsPlan derives the plan from the live (non-shadowed) rules. extra are
// more protected paths (emit.Tool.Protected: start-up files and JP's own
// directories outside the workspace) and policyFiles the workspace's own
// config files (emit.Tool.PolicyFiles), all kept like ProtectedNames:
// read-only where a writable bind covers them and no rule names them.
func nsPlan(live []emit.AbsRule, extra, policyFiles []string) *ll.NSPlan {
	p := &ll.NSPlan{Binds: []ll.NSBind{}, Masks: []string{}, Protected: []string{}}
	named := map[string]bool{}
	for _, r := range live {
		named[r.Abs] = true
		caps := emit.CapsOf(r.Rule)
		if RightsOf(caps) == 0 {
			if hasAncestorRule(live, r.Abs) {
				p.Masks = append(p.Masks, r.Abs)
			}
			continue
		}
		rw := caps.Has(policy.Create) || caps.Has(policy.Update) || caps.Has(policy.Delete)
		p.Binds = append(p.Binds, ll.NSBind{Path: r.Abs, RW: rw})
	}
	var cands []string
	for _, b := range p.Binds {
		if !b.RW {
			continue
		}
		for _, n := range ll.ProtectedNames {
			cands = append(cands, filepath.Join(b.Path, filepath.FromSlash(n)))
		}
	}
	cands = append(cands, policyFiles...)
	for _, c := range append(cands, extra...) {
		if named[c] || slices.Contains(p.Protected, c) || !p.WritableAt(c) {
			continue
		}
		p.Protected = append(p.Protected, c)
	}
	p.PinAncestors(append(append([]string(nil), p.Protected...), p.Masks...))
	sort.Slice(p.Binds, func(i, j int) bool { return p.Binds[i].Path < p.Binds[j].Path })
	sort.Strings(p.Masks)
	sort.Strings(p.Protected)
	return p
}
