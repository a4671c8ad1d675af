package landlock

import (
	"slices"
	"testing"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// MaxFSABI is written as a constant so nothing computes it at init; it
// must stay the newest ABI in rightABI.
func TestMaxFSABI(t *testing.T) {
	if want := slices.Max(rightABI); MaxFSABI != want {
		t.Errorf("MaxFSABI = %d, rightABI's newest is %d", MaxFSABI, want)
	}
}

// CapabilityRights is indexed by capability: every capability has an
// entry with rights, and the array has no index past the last one.
func TestCapabilityRightsCoverCapabilities(t *testing.T) {
	if len(CapabilityRights) != len(policy.Capabilities) {
		t.Errorf("CapabilityRights has %d entries, policy %d capabilities", len(CapabilityRights), len(policy.Capabilities))
	}
	for _, c := range policy.Capabilities {
		if int(c) >= len(CapabilityRights) || CapabilityRights[c] == 0 {
			t.Errorf("capability %v has no Landlock rights", c)
		}
	}
}
