package config

import (
	"testing"

	"github.com/jp-policy/jp-policy/internal/tomlpos"
)

func mergeDocs(t *testing.T, docs ...string) *Loaded {
	t.Helper()
	l := &Loaded{Tools: map[string]*Tool{}}
	m := newMerger(l)
	for i, d := range docs {
		root, err := tomlpos.ParseTOML(string(rune('a'+i))+".toml", []byte(d))
		if err != nil {
			t.Fatal(err)
		}
		m.apply(root)
	}
	return l
}

func TestMergeScalars(t *testing.T) {
	tests := []struct {
		name       string
		docs       []string
		enable     string // "true"/"false"/mode/"" for unset
		overrodeBy int
	}{
		{"bool then mode", []string{"conversation.tools.t.enable = true\n", "conversation.tools.t.enable = \"explicit\"\n"}, "explicit", 1},
		{"mode then bool", []string{"conversation.tools.t.enable = \"explicit\"\n", "conversation.tools.t.enable = false\n"}, "false", 1},
		{"three writes", []string{"conversation.tools.t.enable = true\n", "conversation.tools.t.enable = \"explicit\"\n", "conversation.tools.t.enable = true\n"}, "true", 2},
		{"wrong type ignored", []string{"conversation.tools.t.enable = true\n", "conversation.tools.t.enable = 3\n"}, "true", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tool := mergeDocs(t, tc.docs...).Tools["t"]
			got, n := "", 0
			switch {
			case tool.Enable.Set && tool.EnableMode.Set:
				t.Fatal("both enable forms set")
			case tool.Enable.Set:
				got, n = map[bool]string{true: "true", false: "false"}[tool.Enable.Value], len(tool.Enable.Overrode)
			case tool.EnableMode.Set:
				got, n = tool.EnableMode.Value, len(tool.EnableMode.Overrode)
			}
			if got != tc.enable || n != tc.overrodeBy {
				t.Errorf("enable %q overrode %d, want %q %d", got, n, tc.enable, tc.overrodeBy)
			}
		})
	}
}

func TestMergeCommandsAndFailClosed(t *testing.T) {
	l := mergeDocs(t,
		"[conversation.tools.t.access.commands]\ncargo = { args = [[\"check\", \"**\"]] }\ngit = {}\n",
		"[conversation.tools.t.access.commands]\ncargo = { args = \"check\" }\n",
		"conversation.tools.t.access.fs = [{ path = \"a\", read = \"yes\", write = true }]\n",
	)
	a := l.Tools["t"].Access
	cargo := a.Commands["cargo"]
	// A malformed args list narrows to no argument list, never to nil
	// (which would allow any arguments).
	if cargo.Args == nil || len(cargo.Args) != 0 || len(cargo.Overrode) != 1 {
		t.Errorf("cargo = %+v", cargo)
	}
	if git := a.Commands["git"]; git == nil || git.Args != nil {
		t.Errorf("git = %+v", git)
	}
	if r := a.FS[0]; r.Read != nil || r.Write == nil || !*r.Write {
		t.Errorf("fs rule: a bad read must stay unset: %+v", r)
	}
	if len(a.CommandsDecl) != 2 || len(a.FSDecl) != 1 {
		t.Errorf("decls %v %v", a.CommandsDecl, a.FSDecl)
	}
}

// TestEnableTable: the table form merges field by field, as JP's
// EnableConfig does; the bool and string forms replace both.
func TestEnableTable(t *testing.T) {
	l := mergeDocs(t,
		"conversation.tools.t.enable = { state = false, allow_toggle = \"never\" }\n",
		"conversation.tools.t.enable = { state = true }\n",
	)
	tl := l.Tools["t"]
	if !tl.Enable.Set || !tl.Enable.Value || tl.AllowToggle.Value != "never" {
		t.Fatalf("enable %+v allow_toggle %+v", tl.Enable, tl.AllowToggle)
	}
	l = mergeDocs(t,
		"conversation.tools.t.enable = { state = false, allow_toggle = \"never\" }\n",
		"conversation.tools.t.enable = \"on\"\n",
	)
	if tl := l.Tools["t"]; tl.AllowToggle.Set || tl.EnableMode.Value != "on" {
		t.Fatalf("a string form must replace the table: %+v %+v", tl.EnableMode, tl.AllowToggle)
	}
}
