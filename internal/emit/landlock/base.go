package landlock

import (
	"fmt"
	"slices"

	"github.com/jp-policy/jp-policy/internal/emit"
)

// Base is what every tool's Linux manifest shares: the system baseline
// and the clauses that read the same for every tool (fs.default, the
// baseline groups, the seccomp filter without network, the capabilities
// and the scopes). The artifact stores it once (BaseFile); each tool's
// manifest file holds no baseline and a reference (a clause with only
// its ID) for each of its clauses that equals the base's. The tool's
// exec plan records the base's SHA-256 beside its manifest's, so the
// pin's hash chain reaches it.
type Base struct {
	Version  int           `json:"version"`
	Baseline []PathRule    `json:"baseline"`
	Clauses  []emit.Clause `json:"clauses"`
}

// BaseFile is the base's file, relative to the artifact directory.
const BaseFile = "shared/landlock.json"

// NewBase is the base Build's manifests share.
func NewBase() *Base {
	cl := []emit.Clause{defaultClause}
	cl = append(cl, baselineClauses()...)
	cl = append(cl, SeccompClauses(*SeccompSpec(Net{Restrict: true}))...)
	cl = append(cl, scopeClauses...)
	return &Base{Version: FormatVersion, Baseline: baselineRules(), Clauses: cl}
}

// SplitBase is m as its file stores it, next to b: no baseline, and each
// clause that equals b's clause of the same ID reduced to that ID. m
// must have b's baseline (Build's manifests do).
func SplitBase(m *Manifest, b *Base) (*Manifest, error) {
	if !slices.EqualFunc(m.Baseline, b.Baseline, pathRuleEqual) {
		return nil, fmt.Errorf("internal error: the manifest of %s has another baseline than the shared one", m.Tool)
	}
	byID := make(map[string]emit.Clause, len(b.Clauses))
	for _, c := range b.Clauses {
		byID[c.ID] = c
	}
	out := *m
	out.Baseline = []PathRule{}
	out.Clauses = make([]emit.Clause, len(m.Clauses))
	for i, c := range m.Clauses {
		if bc, ok := byID[c.ID]; ok && bc == c {
			c = emit.Clause{ID: c.ID}
		}
		out.Clauses[i] = c
	}
	return &out, nil
}

// JoinBase makes m, a manifest read from its file, whole again with b,
// the base file (whose hash the caller has checked against the one the
// tool's exec plan records): b's baseline, and b's clause for each reference. A
// manifest with a baseline of its own or a reference b lacks is refused.
func JoinBase(m *Manifest, b *Base) error {
	if b.Version != FormatVersion {
		return fmt.Errorf("shared base format %d, this jp-policy reads %d", b.Version, FormatVersion)
	}
	if len(m.Baseline) != 0 {
		return fmt.Errorf("manifest has a baseline of its own beside the shared one")
	}
	byID := make(map[string]emit.Clause, len(b.Clauses))
	for _, c := range b.Clauses {
		byID[c.ID] = c
	}
	for i, c := range m.Clauses {
		if c.Status != "" {
			continue
		}
		bc, ok := byID[c.ID]
		if !ok || c != (emit.Clause{ID: c.ID}) {
			return fmt.Errorf("manifest clause %q is neither complete nor in the shared base", c.ID)
		}
		m.Clauses[i] = bc
	}
	m.Baseline = slices.Clone(b.Baseline)
	return nil
}

func pathRuleEqual(a, b PathRule) bool {
	return a.Path == b.Path && a.Clause == b.Clause && a.Optional == b.Optional && slices.Equal(a.Access, b.Access)
}
