package grantdiff

import (
	"github.com/jp-policy/jp-policy/internal/termstyle"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// otherVar stands for every variable name no rule literal reaches.
const otherVar = "JP_POLICY_DIFF_OTHER"

func sameEnv(a, b []policy.EnvRule) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

// envProbes lists one name per class the rules can tell apart: a name's
// decision depends on the exact rules equal to it and the prefix rules
// whose literal starts it, the longest winning. So: every exact name,
// every prefix literal itself and the literal followed by a suffix no
// rule names, one name no rule reaches, and the minimal set.
func envProbes(rules []policy.EnvRule) []string {
	set := map[string]bool{otherVar: true}
	for _, n := range policy.MinimalEnv {
		set[n] = true
	}
	for _, r := range rules {
		if lit, ok := strings.CutSuffix(r.Name, "*"); ok {
			if lit != "" {
				set[lit] = true
			}
			set[lit+"_"+otherVar] = true
			continue
		}
		set[r.Name] = true
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// diffEnv decides every probe name on both sides as exec does
// (envAllowed).
func diffEnv(old, new []policy.EnvRule) (*Change, error) {
	if sameEnv(old, new) {
		return nil, nil
	}
	var g, l []string
	for _, name := range envProbes(append(append([]policy.EnvRule(nil), old...), new...)) {
		ob, nb := envAllowed(old, name), envAllowed(new, name)
		shown := envShown(name)
		switch {
		case nb && !ob:
			g = append(g, shown)
		case ob && !nb:
			l = append(l, shown)
		}
	}
	g, l = dropPrefixLiterals(g), dropPrefixLiterals(l)
	c := &Change{Clause: ClauseEnv, Before: describeEnv(old), After: describeEnv(new)}
	if len(g) > 0 {
		c.Gained = []Item{{What: "read", On: g}}
	}
	if len(l) > 0 {
		c.Lost = []Item{{What: "read", On: l}}
	}
	if !c.Widened && len(g) == 0 && len(l) == 0 {
		return nil, nil
	}
	return classify(c), nil
}

// dropPrefixLiterals drops "AWS_" where "AWS_*" is listed too: the
// prefix class already names it.
func dropPrefixLiterals(names []string) []string {
	has := map[string]bool{}
	for _, n := range names {
		has[n] = true
	}
	var out []string
	for _, n := range names {
		if !strings.HasSuffix(n, "*") && has[n+"*"] {
			continue
		}
		out = append(out, n)
	}
	return out
}

// envShown names a probe as the class it stands for.
func envShown(name string) string {
	if name == otherVar {
		return "any other variable"
	}
	if lit, ok := strings.CutSuffix(name, "_"+otherVar); ok {
		return lit + "*"
	}
	return name
}

// envAllowed is whether exec passes variable name under rules: the rule
// the evaluator matches decides; a name no rule matches passes when it is
// in the minimal set, which exec passes to every tool (RFD 075) whatever
// its rules grant. No rules at all is unrestricted (describeEnv).
func envAllowed(rules []policy.EnvRule, name string) bool {
	if len(rules) == 0 {
		return true
	}
	if rule, ok := policy.MatchEnv(rules, name); rule != nil {
		return ok
	}
	return slices.Contains(policy.MinimalEnv, name)
}

func describeEnv(rules []policy.EnvRule) string {
	if len(rules) == 0 {
		return "unrestricted"
	}
	var allow, deny []string
	for _, r := range rules {
		if r.Read {
			allow = append(allow, r.Name)
		} else {
			deny = append(deny, r.Name)
		}
	}
	if reflect.DeepEqual(allow, policy.MinimalEnv) && len(deny) == 0 {
		return "the minimal set"
	}
	for i, n := range allow {
		allow[i] = termstyle.Inline(n)
	}
	for i, n := range deny {
		deny[i] = termstyle.Inline(n)
	}
	s := "read " + strings.Join(allow, ", ")
	if len(allow) == 0 {
		s = "no variable"
	}
	if len(deny) > 0 {
		s += "; not " + strings.Join(deny, ", ")
	}
	return s
}
