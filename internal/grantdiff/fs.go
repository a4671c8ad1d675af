package grantdiff

import (
	"github.com/jp-policy/jp-policy/internal/termstyle"
	"reflect"
	"sort"
	"strings"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// notable are the workspace paths JP116 calls self-escalation: writing
// them changes the next policy or runs code as the user. A widened region
// that contains one names it, so the reviewer sees ".jp" rather than ".".
var notable = []string{".jp", ".jp.toml", ".git/hooks", ".git/config"}

// fsSide is one side's fs rules with their checker.
type fsSide struct {
	rules []policy.FsRule
	c     *policy.Checker
}

func newFSSide(evalRoot string, rules []policy.FsRule) (*fsSide, error) {
	c, err := policy.NewChecker(evalRoot, &policy.AccessPolicy{FS: rules})
	if err != nil {
		return nil, err
	}
	return &fsSide{rules: rules, c: c}, nil
}

// decide is CheckFS for a canonical key: the evaluator's decision, except
// that a key at or under an external rule path of either side resolves
// outside the workspace, where only an approved external rule reaches
// (RFD D43); target is the approved target that then applies.
func (s *fsSide) decide(cp policy.Capability, key string, outside bool) (ok bool, target string) {
	idx, ok := s.c.DecideFS(cp, key)
	if !outside {
		return ok, ""
	}
	if idx < 0 || !s.rules[idx].External || s.rules[idx].ApprovedTarget == nil {
		return false, ""
	}
	return ok, *s.rules[idx].ApprovedTarget
}

func fsKeys(rules []policy.FsRule) []string {
	var ks []string
	for _, r := range rules {
		if k, err := policy.LexicalRel(r.LexicalPath); err == nil {
			ks = append(ks, k)
		}
	}
	return ks
}

func under(key, dir string) bool {
	return dir == "" || key == dir || strings.HasPrefix(key, dir+"/")
}

func display(key string) string {
	if key == "" {
		return "."
	}
	return key
}

func sameFS(a, b []policy.FsRule) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

// diffFS compares two fs rule lists per capability over every rule path
// of both sides and the root: for any other path the winning rule on each
// side is the one at its longest prefix among those paths, so these
// probes decide every path.
func diffFS(evalRoot string, old, new []policy.FsRule) (*Change, error) {
	if sameFS(old, new) {
		return nil, nil
	}
	o, err := newFSSide(evalRoot, old)
	if err != nil {
		return nil, err
	}
	n, err := newFSSide(evalRoot, new)
	if err != nil {
		return nil, err
	}
	regionSet := map[string]bool{"": true}
	for _, k := range append(fsKeys(old), fsKeys(new)...) {
		regionSet[k] = true
	}
	var externals []string
	for _, rs := range [][]policy.FsRule{old, new} {
		for _, r := range rs {
			if r.External {
				if k, err := policy.LexicalRel(r.LexicalPath); err == nil {
					externals = append(externals, k)
				}
			}
		}
	}
	isOutside := func(key string) bool {
		for _, e := range externals {
			if e != "" && under(key, e) {
				return true
			}
		}
		return false
	}
	regions := make([]string, 0, len(regionSet))
	for k := range regionSet {
		regions = append(regions, k)
	}
	sort.Strings(regions)

	gained, lost := map[string][]string{}, map[string][]string{}
	retarget := map[string]string{}
	for _, k := range regions {
		out := isOutside(k)
		var g, l []policy.Capability
		for _, cp := range policy.Capabilities {
			ob, ot := o.decide(cp, k, out)
			nb, nt := n.decide(cp, k, out)
			switch {
			case nb && !ob:
				g = append(g, cp)
			case ob && !nb:
				l = append(l, cp)
			case ob && nb && ot != nt:
				// The same rule path now reaches another directory.
				g = append(g, cp)
				l = append(l, cp)
				retarget[display(k)] = nt
			}
		}
		gained[display(k)] = capNames(g)
		lost[display(k)] = capNames(l)
	}
	// Notable paths are inside some region; name them where they gain.
	including := map[string][]string{}
	cands := append([]string(nil), notable...)
	for _, k := range regions {
		if k != "" {
			cands = append(cands, k+"/.jp.toml")
		}
	}
	for _, nk := range cands {
		if regionSet[nk] {
			continue
		}
		r := longestRegion(regions, nk)
		if len(gained[display(r)]) > 0 && !isOutside(nk) {
			including[display(r)] = append(including[display(r)], displayNotable(nk))
		}
	}
	shown := make([]string, len(regions))
	for i, k := range regions {
		shown[i] = display(k)
	}
	c := &Change{Clause: ClauseFS, Before: describeFS(old), After: describeFS(new),
		Gained: groupItems(shown, gained, including), Lost: groupItems(shown, lost, nil)}
	for i := range c.Gained {
		for _, t := range c.Gained[i].On {
			if tgt, ok := retarget[t]; ok {
				c.Gained[i].Including = append(c.Gained[i].Including, "now through "+tgt)
			}
		}
	}
	if len(c.Gained) == 0 && len(c.Lost) == 0 {
		// Written differently, decided the same (a rule repeated, write
		// spelled as create+update+delete): nothing to review.
		return nil, nil
	}
	return classify(c), nil
}

func displayNotable(k string) string {
	if k == ".jp" || k == ".git/hooks" {
		return k + "/"
	}
	return k
}

func longestRegion(regions []string, key string) string {
	best := ""
	for _, r := range regions {
		if under(key, r) && len(r) > len(best) {
			best = r
		}
	}
	return best
}

// capNames names capabilities, "write" standing for create, update and
// delete together (the config's own shorthand).
func capNames(cs []policy.Capability) []string {
	has := map[policy.Capability]bool{}
	for _, c := range cs {
		has[c] = true
	}
	var out []string
	if has[policy.Read] {
		out = append(out, "read")
	}
	if has[policy.Create] && has[policy.Update] && has[policy.Delete] {
		out = append(out, "write")
	} else {
		for _, c := range []policy.Capability{policy.Create, policy.Update, policy.Delete} {
			if has[c] {
				out = append(out, c.String())
			}
		}
	}
	if has[policy.Execute] {
		out = append(out, "execute")
	}
	return out
}

// describeFS renders one side's fs grants: the effective rule per path
// (the last one written there), in order.
func describeFS(rules []policy.FsRule) string {
	if len(rules) == 0 {
		return "unrestricted (the whole workspace)"
	}
	last := map[string]int{}
	var order []string
	for i, r := range rules {
		k, _ := policy.LexicalRel(r.LexicalPath)
		if _, ok := last[k]; !ok {
			order = append(order, k)
		}
		last[k] = i
	}
	parts := make([]string, 0, len(order))
	for _, k := range order {
		r := rules[last[k]]
		var cs []policy.Capability
		for _, cp := range policy.Capabilities {
			if r.Grants(cp) {
				cs = append(cs, cp)
			}
		}
		what := strings.Join(capNames(cs), "+")
		if what == "" {
			what = "nothing"
		}
		p := what + " on " + termstyle.Code(display(k))
		if r.External {
			t := "unapproved"
			if r.ApprovedTarget != nil {
				t = *r.ApprovedTarget
			}
			p += " (external → " + t + ")"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}
