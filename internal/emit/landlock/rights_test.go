package landlock

import (
	"reflect"
	"testing"

	ll "github.com/jp-policy/jp-policy/internal/plan/landlock"

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
		{"read", caps(policy.Read), []string{ll.ReadFile, ll.ReadDir}},
		{"create", caps(policy.Create), []string{ll.MakeDir, ll.MakeReg, ll.MakeSym}},
		{"update", caps(policy.Update), []string{ll.WriteFile, ll.Truncate}},
		{"delete", caps(policy.Delete), []string{ll.RemoveDir, ll.RemoveFile}},
		{"execute", caps(policy.Execute), []string{ll.Execute}},
		{"create+delete adds refer", caps(policy.Create, policy.Delete), []string{ll.RemoveDir, ll.RemoveFile, ll.MakeDir, ll.MakeReg, ll.MakeSym, ll.Refer}},
		{"create+update has no refer", caps(policy.Create, policy.Update), []string{ll.WriteFile, ll.MakeDir, ll.MakeReg, ll.MakeSym, ll.Truncate}},
		{"write alias", emit.CapsOf(policy.FsRule{Write: new(true)}), []string{ll.WriteFile, ll.RemoveDir, ll.RemoveFile, ll.MakeDir, ll.MakeReg, ll.MakeSym, ll.Refer, ll.Truncate}},
		{"write without delete", emit.CapsOf(policy.FsRule{Write: new(true), Delete: new(false)}), []string{ll.WriteFile, ll.MakeDir, ll.MakeReg, ll.MakeSym, ll.Truncate}},
		{"everything", caps(policy.Capabilities...), []string{ll.Execute, ll.WriteFile, ll.ReadFile, ll.ReadDir, ll.RemoveDir, ll.RemoveFile, ll.MakeDir, ll.MakeReg, ll.MakeSym, ll.Refer, ll.Truncate}},
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
	for _, n := range []string{ll.MakeChar, ll.MakeBlock, ll.MakeFifo, ll.MakeSock, ll.IoctlDev} {
		if r, _ := ll.ParseRights([]string{n}); all&r != 0 {
			t.Errorf("full policy grants %s", n)
		}
	}
}
