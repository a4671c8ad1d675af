package emit

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// InputError reports an emit.Tool that an emitter refuses to translate.
// Emitters fail closed: a tool whose grants do not line up with its rules
// gets no manifest at all rather than a guessed one.
type InputError struct {
	Tool   string
	Reason string
}

func (e *InputError) Error() string {
	return fmt.Sprintf("emit: tool %q: %s", e.Tool, e.Reason)
}

// AbsRule is one fs rule bound to its absolute path, the unit every
// emitter reasons about. The OS only ever sees resolved absolute paths, so
// the emitters evaluate rules in that space: for an absolute path the
// winning rule is the one whose Abs is the longest component-wise prefix,
// the later rule winning when two rules resolve to the same Abs (RFD 076's
// "last rule wins" on equal specificity).
type AbsRule struct {
	Index int
	Abs   string
	Link  string
	Kind  plan.PathKind
	Rule  policy.FsRule
	// ShadowedBy is the index of the later rule with the same Abs that
	// wins over this one, or -1.
	ShadowedBy int
}

// Caps is the set of RFD 076 capabilities a rule grants, one bit per
// policy.Capability.
type Caps uint8

// CapsOf returns the capabilities r grants, after alias expansion.
func CapsOf(r policy.FsRule) Caps {
	var c Caps
	for _, k := range policy.Capabilities {
		if r.Grants(k) {
			c |= 1 << uint(k)
		}
	}
	return c
}

// Has reports whether c includes k.
func (c Caps) Has(k policy.Capability) bool { return c&(1<<uint(k)) != 0 }

// String lists the capabilities, "none" when empty.
func (c Caps) String() string {
	var out []string
	for _, k := range policy.Capabilities {
		if c.Has(k) {
			out = append(out, k.String())
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, "+")
}

// AbsRules validates t's grants against its rules and returns one AbsRule
// per fs rule, sorted by Abs (then Index) so every emitter walks them in
// the same deterministic order.
func (t Tool) AbsRules() ([]AbsRule, error) {
	if len(t.Grants) != len(t.Access.FS) {
		return nil, &InputError{t.Name, fmt.Sprintf("%d grants for %d fs rules", len(t.Grants), len(t.Access.FS))}
	}
	if !cleanAbs(t.Root) {
		return nil, &InputError{t.Name, fmt.Sprintf("workspace root %q is not a clean absolute path", t.Root)}
	}
	out := make([]AbsRule, len(t.Grants))
	for i, g := range t.Grants {
		r := t.Access.FS[i]
		if g.Index != i {
			return nil, &InputError{t.Name, fmt.Sprintf("grant %d names rule %d", i, g.Index)}
		}
		if !cleanAbs(g.Abs) {
			return nil, &InputError{t.Name, fmt.Sprintf("fs[%d]: path %q is not a clean absolute path", i, g.Abs)}
		}
		switch g.Kind {
		case plan.KindDir, plan.KindFile, plan.KindMissing:
		default:
			return nil, &InputError{t.Name, fmt.Sprintf("fs[%d]: unknown kind %q", i, g.Kind)}
		}
		if r.External != (g.Link != "") {
			return nil, &InputError{t.Name, fmt.Sprintf("fs[%d]: external=%v but link %q", i, r.External, g.Link)}
		}
		if g.Link != "" && !cleanAbs(g.Link) {
			return nil, &InputError{t.Name, fmt.Sprintf("fs[%d]: link %q is not a clean absolute path", i, g.Link)}
		}
		if !r.External && !policy.Within(g.Abs, t.Root) {
			return nil, &InputError{t.Name, fmt.Sprintf("fs[%d]: %q is outside the workspace %q", i, g.Abs, t.Root)}
		}
		out[i] = AbsRule{Index: i, Abs: g.Abs, Link: g.Link, Kind: g.Kind, Rule: r, ShadowedBy: -1}
	}
	last := map[string]int{}
	for i := range out {
		last[out[i].Abs] = i
	}
	for i := range out {
		if j := last[out[i].Abs]; j != i {
			out[i].ShadowedBy = j
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].Abs != out[b].Abs {
			return out[a].Abs < out[b].Abs
		}
		return out[a].Index < out[b].Index
	})
	return out, nil
}

// Live drops shadowed rules: what remains has one rule per Abs.
func Live(rules []AbsRule) []AbsRule {
	out := make([]AbsRule, 0, len(rules))
	for _, r := range rules {
		if r.ShadowedBy < 0 {
			out = append(out, r)
		}
	}
	return out
}

// Beneath returns the live rules strictly beneath dir.
func Beneath(rules []AbsRule, dir string) []AbsRule {
	var out []AbsRule
	for _, r := range rules {
		if r.ShadowedBy < 0 && r.Abs != dir && policy.Within(r.Abs, dir) {
			out = append(out, r)
		}
	}
	return out
}

// Outermost returns the live rules strictly beneath dir that have no other
// live rule between them and dir.
func Outermost(rules []AbsRule, dir string) []AbsRule {
	under := Beneath(rules, dir)
	var out []AbsRule
	for _, r := range under {
		nested := false
		for _, o := range under {
			if o.Abs != r.Abs && policy.Within(r.Abs, o.Abs) {
				nested = true
				break
			}
		}
		if !nested {
			out = append(out, r)
		}
	}
	return out
}

// Winner returns the live rule governing the absolute path p, and false
// when no rule covers it (default-deny).
func Winner(rules []AbsRule, p string) (AbsRule, bool) {
	var best AbsRule
	found := false
	for _, r := range rules {
		if r.ShadowedBy >= 0 || !policy.Within(p, r.Abs) {
			continue
		}
		if !found || len(r.Abs) > len(best.Abs) {
			best, found = r, true
		}
	}
	return best, found
}

func cleanAbs(p string) bool {
	return p != "" && filepath.IsAbs(p) && filepath.Clean(p) == p && !strings.ContainsRune(p, 0)
}
