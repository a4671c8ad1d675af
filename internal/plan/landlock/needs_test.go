package landlock

import (
	"slices"
	"testing"
)

func TestNamespaceNeeds(t *testing.T) {
	ws := "/w"
	for _, tc := range []struct {
		name string
		m    Manifest
		want []string // IDs
		weak []string // IDs with Weaker
	}{
		{"no plan (older manifest)", Manifest{}, nil, nil},
		{"read-only workspace", Manifest{Namespace: &NSPlan{Binds: []NSBind{{Path: ws}}}}, nil, nil},
		{"default policy: protected paths", Manifest{Namespace: &NSPlan{Binds: []NSBind{{Path: ws, RW: true}}, Protected: []string{ws + "/.git/hooks"}}},
			[]string{"ns.protected"}, []string{"ns.protected"}},
		{"mask and read-only inside writable", Manifest{Namespace: &NSPlan{Binds: []NSBind{{Path: ws, RW: true}, {Path: ws + "/src"}}, Masks: []string{ws + "/.env"}}},
			[]string{"ns.masks", "ns.readonly"}, nil},
		{"writable inside read-only is exact already", Manifest{Namespace: &NSPlan{Binds: []NSBind{{Path: ws}, {Path: ws + "/out", RW: true}}}}, nil, nil},
		{"net rules", Manifest{Net: Net{ConnectTCP: []uint16{443}}, Namespace: &NSPlan{}}, []string{"ns.net"}, []string{"ns.net"}},
		{"net rules with a bind grant stay on ports", Manifest{Net: Net{ConnectTCP: []uint16{443}, BindTCP: []uint16{8080}}, Namespace: &NSPlan{}}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ids, weak []string
			for _, n := range NamespaceNeeds(&tc.m) {
				ids = append(ids, n.ID)
				if n.Weaker {
					weak = append(weak, n.ID)
				}
				if n.What == "" || n.Exact == "" || n.Without == "" {
					t.Errorf("%s: empty description: %+v", n.ID, n)
				}
			}
			if !slices.Equal(ids, tc.want) || !slices.Equal(weak, tc.weak) {
				t.Errorf("needs = %v (weaker %v), want %v (weaker %v)", ids, weak, tc.want, tc.weak)
			}
		})
	}
}
