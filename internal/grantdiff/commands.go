package grantdiff

import (
	"github.com/jp-policy/jp-policy/internal/termstyle"
	"reflect"
	"sort"
	"strings"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// diffCommands compares two commands tables structurally: nil is any
// program; a program present on one side only is granted or withdrawn;
// within a program, an args prefix is new when no prefix of the other
// side matches everything it matches, and envs (nil: no narrowing) gain
// a variable when the other side listed fewer.
func diffCommands(old, new map[string]policy.CommandRule) *Change {
	if reflect.DeepEqual(old, new) {
		return nil
	}
	c := &Change{Clause: ClauseCommands, Before: describeCommands(old), After: describeCommands(new)}
	switch {
	case old == nil && new == nil:
		return nil
	case new == nil:
		c.Gained = []Item{{What: "run any program"}}
		return classify(c)
	case old == nil:
		c.Lost = []Item{{What: "run programs other than", On: keys(new)}}
		return classify(c)
	}
	c.Gained = commandGains(old, new)
	c.Lost = commandGains(new, old)
	if len(c.Gained) == 0 && len(c.Lost) == 0 {
		return nil
	}
	return classify(c)
}

// commandGains lists what b allows that a does not (both non-nil).
func commandGains(a, b map[string]policy.CommandRule) []Item {
	var out []Item
	for _, prog := range keys(b) {
		br := b[prog]
		ar, ok := a[prog]
		if !ok {
			out = append(out, Item{What: "run " + termstyle.Inline(prog) + " with", On: []string{describeArgs(br.Args)}})
			continue
		}
		var newArgs []string
		if br.Args == nil && ar.Args != nil {
			newArgs = append(newArgs, "any arguments")
		} else if br.Args != nil {
			for _, p := range br.Args {
				if !covered(p, ar.Args) {
					newArgs = append(newArgs, argsString(p))
				}
			}
		}
		if len(newArgs) > 0 {
			out = append(out, Item{What: "run " + termstyle.Inline(prog) + " with", On: newArgs})
		}
		if ar.Envs != nil {
			var extra []string
			if br.Envs == nil {
				extra = []string{"every variable the tool may read"}
			} else {
				for _, e := range br.Envs {
					if !contains(ar.Envs, e) {
						extra = append(extra, e)
					}
				}
			}
			if len(extra) > 0 {
				out = append(out, Item{What: "let " + termstyle.Inline(prog) + " see", On: extra})
			}
		}
	}
	return out
}

// covered reports whether every argument list prefix p matches is matched
// by one of the prefixes in ps (nil: any arguments). One prefix must do
// it alone: a rest prefix matches infinitely many lists, which finitely
// many exact prefixes cannot cover.
func covered(p []string, ps [][]string) bool {
	if ps == nil {
		return true
	}
	pl, prest := split(p)
	for _, q := range ps {
		ql, qrest := split(q)
		if qrest {
			if len(ql) <= len(pl) && reflect.DeepEqual(ql, pl[:len(ql)]) {
				return true
			}
			continue
		}
		if !prest && reflect.DeepEqual(ql, pl) {
			return true
		}
	}
	return false
}

func split(p []string) ([]string, bool) {
	if n := len(p); n > 0 && p[n-1] == policy.AnyRest {
		return append([]string{}, p[:n-1]...), true
	}
	return append([]string{}, p...), false
}

func argsString(p []string) string {
	if len(p) == 0 {
		return "no arguments"
	}
	q := make([]string, len(p))
	for i, a := range p {
		q[i] = termstyle.Inline(a)
	}
	return "[" + strings.Join(q, " ") + "]"
}

func describeArgs(args [][]string) string {
	if args == nil {
		return "any arguments"
	}
	if len(args) == 0 {
		return "no invocation (args = [])"
	}
	ps := make([]string, len(args))
	for i, p := range args {
		ps[i] = argsString(p)
	}
	return strings.Join(ps, ", ")
}

func describeCommands(m map[string]policy.CommandRule) string {
	if m == nil {
		return "any program"
	}
	if len(m) == 0 {
		return "no program"
	}
	parts := make([]string, 0, len(m))
	for _, k := range keys(m) {
		parts = append(parts, termstyle.Inline(k)+" ("+describeArgs(m[k].Args)+")")
	}
	return strings.Join(parts, "; ")
}

func keys(m map[string]policy.CommandRule) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
