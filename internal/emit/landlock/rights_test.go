package landlock

import (
	"reflect"
	"testing"

	"github.com/jp-policy/jp-policy/internal/emit"
	"github.com/jp-policy/jp-policy/internal/policy"
)

func caps(ks ...policy.Capability) emit.Caps {
	var c emit.Caps
	for _, k := range ks {
		c |= 1 << uint(k)
	}
	return c
}

// TestCapabilityMapping pins the mapping written down in
// docs/enforcement.md; changing it changes what tools may do.
func TestCapabilityMapping(t *testing.T) {
	tests := []struct {
		name string
		caps emit.Caps
		want []string
	}{
		{"none", 0, []string{}},
		{"read", caps(policy.Read), []string{ReadFile, ReadDir}},
		{"create", caps(policy.Create), []string{MakeDir, MakeReg, MakeSym}},
		{"update", caps(policy.Update), []string{WriteFile, Truncate}},
		{"delete", caps(policy.Delete), []string{RemoveDir, RemoveFile}},
		{"execute", caps(policy.Execute), []string{Execute}},
		{"create+delete adds refer", caps(policy.Create, policy.Delete), []string{RemoveDir, RemoveFile, MakeDir, MakeReg, MakeSym, Refer}},
		{"create+update has no refer", caps(policy.Create, policy.Update), []string{WriteFile, MakeDir, MakeReg, MakeSym, Truncate}},
		{"write alias", emit.CapsOf(policy.FsRule{Write: new(true)}), []string{WriteFile, RemoveDir, RemoveFile, MakeDir, MakeReg, MakeSym, Refer, Truncate}},
		{"write without delete", emit.CapsOf(policy.FsRule{Write: new(true), Delete: new(false)}), []string{WriteFile, MakeDir, MakeReg, MakeSym, Truncate}},
		{"everything", caps(policy.Capabilities...), []string{Execute, WriteFile, ReadFile, ReadDir, RemoveDir, RemoveFile, MakeDir, MakeReg, MakeSym, Refer, Truncate}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RightsOf(tt.caps).Names(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("RightsOf(%s) = %v, want %v", tt.caps, got, tt.want)
			}
		})
	}
}

// Nothing the policy can say maps to device nodes, sockets or fifos.
func TestNoSpecialFiles(t *testing.T) {
	all := RightsOf(caps(policy.Capabilities...))
	for _, n := range []string{MakeChar, MakeBlock, MakeFifo, MakeSock, IoctlDev} {
		if all&bit(n) != 0 {
			t.Errorf("full policy grants %s", n)
		}
	}
}

func TestRightsRoundTripAndABI(t *testing.T) {
	tests := []struct {
		r   Rights
		abi int
	}{
		{0, 1}, {RReadFile | RReadDir, 1}, {RRefer, 2}, {RTruncate | RRefer, 3}, {RIoctlDev, 5},
	}
	for _, tt := range tests {
		back, unknown := ParseRights(tt.r.Names())
		if back != tt.r || len(unknown) != 0 {
			t.Errorf("round trip of %v gave %v (unknown %v)", tt.r.Names(), back.Names(), unknown)
		}
		if got := tt.r.MinABI(); got != tt.abi {
			t.Errorf("MinABI(%v) = %d, want %d", tt.r.Names(), got, tt.abi)
		}
	}
	if _, unknown := ParseRights([]string{"read_file", "fly"}); !reflect.DeepEqual(unknown, []string{"fly"}) {
		t.Errorf("unknown = %v", unknown)
	}
}
