package landlock

import (
	"fmt"
	"slices"

	"github.com/jp-policy/jp-policy/internal/plan"
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
	Clauses  []plan.Clause `json:"clauses"`
}

// BaseFile is the base's file, relative to the artifact directory.
const BaseFile = "shared/landlock.json"

// JoinBase makes m, a manifest read from its file, whole again with b,
// the base file (whose hash the caller has checked against the one the
// tool's exec plan records): b's baseline, and b's clause for each
// reference. A manifest with a baseline of its own or a reference b lacks
// is refused.
func JoinBase(m *Manifest, b *Base) error {
	if b.Version != FormatVersion {
		return fmt.Errorf("shared base format %d, this jp-policy reads %d", b.Version, FormatVersion)
	}
	if len(m.Baseline) != 0 {
		return fmt.Errorf("manifest has a baseline of its own beside the shared one")
	}
	byID := make(map[string]plan.Clause, len(b.Clauses))
	for _, c := range b.Clauses {
		byID[c.ID] = c
	}
	for i, c := range m.Clauses {
		if c.Status != "" {
			continue
		}
		bc, ok := byID[c.ID]
		if !ok || c != (plan.Clause{ID: c.ID}) {
			return fmt.Errorf("manifest clause %q is neither complete nor in the shared base", c.ID)
		}
		m.Clauses[i] = bc
	}
	m.Baseline = slices.Clone(b.Baseline)
	return nil
}
