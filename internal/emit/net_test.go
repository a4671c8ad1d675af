package emit

import (
	"reflect"
	"testing"

	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/policy"
)

func TestPlanNet(t *testing.T) {
	tests := []struct {
		name   string
		rules  []policy.NetRule
		ports  []uint16
		status []plan.Status
	}{
		{"none", nil, nil, nil},
		{"https default", []policy.NetRule{{Host: "a", Scheme: new("https"), Allow: true}}, []uint16{443}, []plan.Status{plan.Degraded}},
		{"explicit port beats scheme", []policy.NetRule{{Host: "a", Scheme: new("https"), Port: new(uint16(8443)), Allow: true}}, []uint16{8443}, []plan.Status{plan.Degraded}},
		{"unknown scheme fails closed", []policy.NetRule{{Host: "a", Scheme: new("gopher"), Allow: true}}, nil, []plan.Status{plan.Degraded}},
		{"no port no scheme fails closed", []policy.NetRule{{Host: "a", Allow: true}}, nil, []plan.Status{plan.Degraded}},
		{"port zero opens nothing", []policy.NetRule{{Host: "a", Port: new(uint16(0)), Allow: true}}, nil, []plan.Status{plan.Degraded}},
		{"deny on closed port enforced", []policy.NetRule{{Host: "a", Scheme: new("http"), Allow: true}, {Host: "b", Port: new(uint16(22))}}, []uint16{80}, []plan.Status{plan.Degraded, plan.Enforced}},
		{"deny on open port cooperative", []policy.NetRule{{Host: "a", Scheme: new("https"), Allow: true}, {Host: "b", Scheme: new("https")}}, []uint16{443}, []plan.Status{plan.Degraded, plan.Cooperative}},
		{"deny without port, nothing open", []policy.NetRule{{Host: "b"}}, nil, []plan.Status{plan.Enforced}},
		{"sorted, deduplicated", []policy.NetRule{{Host: "a", Port: new(uint16(9000)), Allow: true}, {Host: "b", Scheme: new("wss"), Allow: true}, {Host: "c", Port: new(uint16(443)), Allow: true}}, []uint16{443, 9000}, []plan.Status{plan.Degraded, plan.Degraded, plan.Degraded}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			np := PlanNet(tt.rules)
			if !reflect.DeepEqual(np.Ports, tt.ports) {
				t.Errorf("ports = %v, want %v", np.Ports, tt.ports)
			}
			var got []plan.Status
			for _, c := range NetClauses(np, "X", 4) {
				got = append(got, c.Status)
			}
			if !reflect.DeepEqual(got, tt.status) {
				t.Errorf("statuses = %v, want %v", got, tt.status)
			}
		})
	}
}

// The OS must open the port the cooperative check assumes for a scheme.
func TestSchemePortsAgreeWithPolicy(t *testing.T) {
	for _, s := range []string{"http", "https", "ws", "wss", "ftp", "HTTPS", "gopher", "ssh", "git", ""} {
		want, wok := policy.DefaultPort(s)
		np := PlanNet([]policy.NetRule{{Host: "h", Scheme: &s, Allow: true}})
		got, gok := np.Rules[0].Port, np.Rules[0].HasPort
		if wok != gok || (wok && want != got) {
			t.Errorf("scheme %q: emit port %d (%v), policy %d (%v)", s, got, gok, want, wok)
		}
	}
}
