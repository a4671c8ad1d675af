package winjob

import (
	"testing"

	"github.com/jp-policy/jp-policy/internal/emit"
	"github.com/jp-policy/jp-policy/internal/emit/internal/emittest"
	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/policy"
)

func TestGolden(t *testing.T) {
	emittest.GoldenJSON(t, Build)
}

// A job object never claims to enforce files or hosts.
func TestHonestClauses(t *testing.T) {
	for _, sc := range emittest.Scenarios(t) {
		m, err := Build(sc.Tool)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range m.Clauses {
			if (len(c.ID) > 2 && c.ID[:3] == "fs[") || c.ID == "net" || (len(c.ID) > 3 && c.ID[:4] == "net[") {
				if c.Status != plan.Cooperative {
					t.Errorf("%s: %s is %s, want cooperative", sc.Name, c.ID, c.Status)
				}
			}
		}
	}
}

func TestProcessLimit(t *testing.T) {
	tests := []struct {
		name  string
		cmds  map[string]policy.CommandRule
		limit uint32
		st    plan.Status
	}{
		{"any program", nil, 0, plan.Enforced},
		{"no program", map[string]policy.CommandRule{}, 1, plan.Enforced},
		{"some programs", map[string]policy.CommandRule{"git": {}}, 0, plan.Degraded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := emit.Tool{Name: "t", Root: "/ws", Access: policy.AccessPolicy{Commands: tt.cmds}}
			m, err := Build(tool)
			if err != nil {
				t.Fatal(err)
			}
			if m.Limits.ActiveProcessLimit != tt.limit {
				t.Errorf("limit = %d, want %d", m.Limits.ActiveProcessLimit, tt.limit)
			}
			for _, c := range m.Clauses {
				if c.ID == "commands" && c.Status != tt.st {
					t.Errorf("commands clause %s, want %s", c.Status, tt.st)
				}
			}
			if !m.Limits.KillOnJobClose || m.Limits.BreakawayOK {
				t.Error("every job must kill on close and forbid breakaway")
			}
		})
	}
}
