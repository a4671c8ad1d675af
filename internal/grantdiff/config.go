package grantdiff

import (
	"github.com/jp-policy/jp-policy/internal/termstyle"
	"reflect"
	"strings"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// otherKey stands for every config path segment no rule names at that
// position.
const otherKey = "jp_policy_other"

// configProbes enumerates one config path per class the rules can tell
// apart. A path's winning rule depends only on which rules' segments
// (literal or '*') match its leading segments, so at each depth the
// segments worth trying are the literals live rules hold there plus one
// other; a prefix no longer rule can extend decides every path below it
// alike, which ends the walk.
func configProbes(rules []policy.ConfigRule) []string {
	split := make([][]string, 0, len(rules))
	for _, r := range rules {
		split = append(split, strings.Split(r.Path, "."))
	}
	seen := map[string]bool{}
	var out []string
	var walk func(prefix []string)
	walk = func(prefix []string) {
		if len(prefix) > 0 {
			p := strings.Join(prefix, ".")
			if seen[p] {
				return
			}
			seen[p] = true
			out = append(out, p)
		}
		next := map[string]bool{}
		for _, segs := range split {
			if len(segs) <= len(prefix) || !segsMatch(segs[:len(prefix)], prefix) {
				continue
			}
			next[otherKey] = true
			if s := segs[len(prefix)]; s != "*" {
				next[s] = true
			}
		}
		for _, s := range sortedKeys(next) {
			walk(append(append([]string(nil), prefix...), s))
		}
	}
	walk(nil)
	return out
}

func segsMatch(rule, target []string) bool {
	for i := range rule {
		if rule[i] != "*" && rule[i] != target[i] {
			return false
		}
	}
	return true
}

var configOps = []string{policy.ConfigRead, policy.ConfigWriteOp, policy.ConfigDelete}

// diffConfig decides read, write and delete, and whether a change is
// applied without asking, on every probe path for both sides.
func diffConfig(evalRoot string, old, new []policy.ConfigRule) (*Change, error) {
	if len(old) == 0 && len(new) == 0 || reflect.DeepEqual(old, new) {
		return nil, nil
	}
	oc, err := policy.NewChecker(evalRoot, &policy.AccessPolicy{Config: old})
	if err != nil {
		return nil, err
	}
	nc, err := policy.NewChecker(evalRoot, &policy.AccessPolicy{Config: new})
	if err != nil {
		return nil, err
	}
	probes := configProbes(append(append([]policy.ConfigRule(nil), old...), new...))
	gained, lost := map[string][]string{}, map[string][]string{}
	var shown []string
	for _, p := range probes {
		s := strings.ReplaceAll(p, otherKey, "<other>")
		shown = append(shown, s)
		for _, op := range configOps {
			od, nd := oc.CheckConfig(op, p), nc.CheckConfig(op, p)
			switch {
			case nd.Allowed && !od.Allowed:
				gained[s] = append(gained[s], op)
			case od.Allowed && !nd.Allowed:
				lost[s] = append(lost[s], op)
			case od.Allowed && nd.Allowed && op != policy.ConfigRead:
				oa, na := applyOf(od), applyOf(nd)
				if oa != na && na == policy.ApplyUnattended {
					gained[s] = append(gained[s], op+" unattended")
				} else if oa != na {
					lost[s] = append(lost[s], op+" unattended")
				}
			}
		}
	}
	c := &Change{Clause: ClauseConfig, Before: describeConfig(old), After: describeConfig(new),
		Gained: groupItems(shown, gained, nil), Lost: groupItems(shown, lost, nil)}
	if len(c.Gained) == 0 && len(c.Lost) == 0 {
		return nil, nil
	}
	return classify(c), nil
}

func applyOf(d policy.Decision) string {
	if r, ok := d.Rule.(policy.ConfigRule); ok {
		return r.EffectiveApply()
	}
	return policy.ApplyAsk
}

func describeConfig(rules []policy.ConfigRule) string {
	if len(rules) == 0 {
		return "no config access"
	}
	parts := make([]string, 0, len(rules))
	for _, r := range rules {
		var ops []string
		for _, op := range configOps {
			if r.GrantsOp(op) {
				ops = append(ops, op)
			}
		}
		what := strings.Join(ops, "+")
		if what == "" {
			what = "nothing"
		}
		if r.EffectiveApply() == policy.ApplyUnattended {
			what += " (unattended)"
		}
		parts = append(parts, what+" on "+termstyle.Code(r.Path))
	}
	return strings.Join(parts, "; ")
}
