package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// TestFlagConventions keeps the CLI's conventions (docs/output.md) true
// for every command, including ones added later: the same flag names,
// short forms and metavars everywhere, and --format json on every command
// that prints a result.
func TestFlagConventions(t *testing.T) {
	var cli CLI
	p, err := kong.New(&cli, kong.Name("jp-policy"), kong.Vars{"version": "test"}, kong.Exit(func(int) {}))
	if err != nil {
		t.Fatal(err)
	}
	// Per long name: the short form and the metavar it must have.
	want := map[string]struct {
		short       rune
		placeholder string
	}{
		"workspace": {'w', "DIR"},
		"tool":      {'t', "TOOL"},
		"approvals": {0, "FILE"},
		"quiet":     {'q', ""},
	}
	shorts := map[rune]string{'w': "workspace", 't': "tool", 'q': "quiet", 'h': "help"}
	// Commands whose result has a JSON shape (docs/output.md).
	formatJSON := []string{"lint", "compile", "exec", "diff", "check", "explain", "config", "rules", "approvals list", "mount", "uri"}
	seenFormat := map[string]bool{}

	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		path := n.Path()
		for _, f := range n.Flags {
			if f.Hidden {
				continue
			}
			if w, ok := want[f.Name]; ok {
				if f.Short != w.short {
					t.Errorf("%s --%s: short %q, want %q", path, f.Name, f.Short, w.short)
				}
				if w.placeholder != "" && f.PlaceHolder != w.placeholder {
					t.Errorf("%s --%s: metavar %q, want %q", path, f.Name, f.PlaceHolder, w.placeholder)
				}
			}
			if f.Short != 0 && shorts[f.Short] != f.Name {
				t.Errorf("%s --%s: -%c means --%s everywhere else", path, f.Name, f.Short, shorts[f.Short])
			}
			if f.Name == "format" {
				if !slices.Contains(f.EnumSlice(), "json") {
					t.Errorf("%s --format: no json (%q)", path, f.EnumSlice())
				}
				seenFormat[path] = true
			}
			if f.Name == "json" && !f.Hidden {
				t.Errorf("%s --json: visible; --format json is the flag, --json a hidden alias", path)
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(p.Model.Node)
	for _, c := range formatJSON {
		if !seenFormat[c] {
			t.Errorf("%s: no --format json", c)
		}
	}
	// --color is global: every command has it through Globals.
	if f := p.Model.Node.Flags; !slices.ContainsFunc(f, func(f *kong.Flag) bool {
		return f.Name == "color" && strings.Join(f.EnumSlice(), ",") == "auto,always,never"
	}) {
		t.Error("no global --color auto|always|never")
	}
}
