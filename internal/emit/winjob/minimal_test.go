package winjob

import (
	"slices"
	"testing"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// Minimal is written out (no append at init): it must be policy's
// minimal environment, in its order, followed by Windows' own variables.
func TestMinimalExtendsPolicy(t *testing.T) {
	want := append(slices.Clone(policy.MinimalEnv), "PATHEXT", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "TMP", "USERNAME", "USERPROFILE", "WINDIR")
	if !slices.Equal(Minimal, want) {
		t.Errorf("Minimal = %q\nwant policy.MinimalEnv + Windows' = %q", Minimal, want)
	}
}
