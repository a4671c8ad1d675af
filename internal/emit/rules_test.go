package emit

import (
	"errors"
	"testing"

	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/policy"
)

func TestWithin(t *testing.T) {
	tests := []struct {
		p, dir string
		want   bool
	}{
		{"/a/b", "/a/b", true},
		{"/a/b/c", "/a/b", true},
		{"/a/bc", "/a/b", false},
		{"/a", "/a/b", false},
		{"/anything", "/", true},
	}
	for _, tt := range tests {
		if got := policy.Within(tt.p, tt.dir); got != tt.want {
			t.Errorf("Within(%q, %q) = %v, want %v", tt.p, tt.dir, got, tt.want)
		}
	}
}

func TestAbsRulesRejects(t *testing.T) {
	yes := true
	ok := Tool{Name: "t", Root: "/ws",
		Access: policy.AccessPolicy{FS: []policy.FsRule{{LexicalPath: "", Read: &yes}}},
		Grants: []plan.Grant{{Index: 0, Abs: "/ws", Kind: plan.KindDir}}}
	tests := []struct {
		name string
		edit func(*Tool)
	}{
		{"grant count", func(t *Tool) { t.Grants = nil }},
		{"relative root", func(t *Tool) { t.Root = "ws" }},
		{"index mismatch", func(t *Tool) { t.Grants[0].Index = 3 }},
		{"unclean abs", func(t *Tool) { t.Grants[0].Abs = "/ws/../etc" }},
		{"relative abs", func(t *Tool) { t.Grants[0].Abs = "ws" }},
		{"nul", func(t *Tool) { t.Grants[0].Abs = "/ws/\x00" }},
		{"unknown kind", func(t *Tool) { t.Grants[0].Kind = "socket" }},
		{"outside workspace", func(t *Tool) { t.Grants[0].Abs = "/etc" }},
		{"external without link", func(t *Tool) { t.Access.FS[0].External = true }},
		{"link on ordinary rule", func(t *Tool) { t.Grants[0].Link = "/ws/x" }},
	}
	if _, err := ok.AbsRules(); err != nil {
		t.Fatalf("valid tool rejected: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := ok
			tool.Access.FS = append([]policy.FsRule(nil), ok.Access.FS...)
			tool.Grants = append([]plan.Grant(nil), ok.Grants...)
			tt.edit(&tool)
			_, err := tool.AbsRules()
			if _, ok := errors.AsType[*InputError](err); !ok {
				t.Fatalf("got %v, want *InputError", err)
			}
		})
	}
}

func TestWinnerAndShadowing(t *testing.T) {
	yes := true
	tool := Tool{Name: "t", Root: "/ws",
		Access: policy.AccessPolicy{FS: []policy.FsRule{
			{LexicalPath: ""}, {LexicalPath: "src", Read: &yes}, {LexicalPath: "src/gen"}, {LexicalPath: "src", Write: &yes},
		}},
		Grants: []plan.Grant{{Index: 0, Abs: "/ws", Kind: plan.KindDir}, {Index: 1, Abs: "/ws/src", Kind: plan.KindDir}, {Index: 2, Abs: "/ws/src/gen", Kind: plan.KindDir}, {Index: 3, Abs: "/ws/src", Kind: plan.KindDir}}}
	rules, err := tool.AbsRules()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want int
	}{{"/ws/README", 0}, {"/ws/src/x", 3}, {"/ws/src", 3}, {"/ws/src/gen/y", 2}, {"/ws/srcx", 0}}
	for _, tt := range tests {
		w, ok := Winner(rules, tt.path)
		if !ok || w.Index != tt.want {
			t.Errorf("Winner(%q) = fs[%d] (%v), want fs[%d]", tt.path, w.Index, ok, tt.want)
		}
	}
	if _, ok := Winner(rules, "/etc"); ok {
		t.Error("a path outside every rule has a winner")
	}
	if got := Outermost(rules, "/ws"); len(got) != 1 || got[0].Index != 3 {
		t.Errorf("Outermost(/ws) = %+v", got)
	}
}
