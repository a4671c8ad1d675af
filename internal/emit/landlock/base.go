package landlock

import (
	"fmt"
	"slices"

	"github.com/jp-policy/jp-policy/internal/plan"
	ll "github.com/jp-policy/jp-policy/internal/plan/landlock"
)

// NewBase is the shared base (ll.Base) Build's manifests are stored
// against: the baseline and the clauses every tool's manifest has.
func NewBase() *ll.Base {
	cl := []plan.Clause{defaultClause}
	cl = append(cl, baselineClauses()...)
	cl = append(cl, SeccompClauses(*SeccompSpec(ll.Net{Restrict: true}))...)
	cl = append(cl, scopeClauses...)
	return &ll.Base{Version: ll.FormatVersion, Baseline: baselineRules(), Clauses: cl}
}

// SplitBase is m as its file stores it, next to b: no baseline, and each
// clause that equals b's clause of the same ID reduced to that ID
// (ll.JoinBase undoes it). m must have b's baseline (Build's manifests
// do).
func SplitBase(m *ll.Manifest, b *ll.Base) (*ll.Manifest, error) {
	if !slices.EqualFunc(m.Baseline, b.Baseline, pathRuleEqual) {
		return nil, fmt.Errorf("internal error: the manifest of %s has another baseline than the shared one", m.Tool)
	}
	byID := make(map[string]plan.Clause, len(b.Clauses))
	for _, c := range b.Clauses {
		byID[c.ID] = c
	}
	out := *m
	out.Baseline = []ll.PathRule{}
	out.Clauses = make([]plan.Clause, len(m.Clauses))
	for i, c := range m.Clauses {
		if bc, ok := byID[c.ID]; ok && bc == c {
			c = plan.Clause{ID: c.ID}
		}
		out.Clauses[i] = c
	}
	return &out, nil
}

func pathRuleEqual(a, b ll.PathRule) bool {
	return a.Path == b.Path && a.Clause == b.Clause && a.Optional == b.Optional && slices.Equal(a.Access, b.Access)
}
