package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/diag"
)

// TestJSONLayerDialect: JP loads JSON layers through schematic, which runs
// json-strip-comments before serde_json, so a JSON layer may hold //, /* */
// and # comments and trailing commas, and an empty file is {}. jp-policy
// reads the empty file as JP does and refuses the rest (strict JSON, never
// a guess at what the stripper keeps), with help that says so.
func TestJSONLayerDialect(t *testing.T) {
	refused := []struct{ name, doc, help string }{
		{"line comment", "{\"conversation\": {} // c\n}", "comments"},
		{"block comment", "{\"conversation\": /* c */ {}}", "comments"},
		{"shell comment", "{\n# c\n\"conversation\": {}}", "comments"},
		{"trailing comma in an object", "{\"conversation\": {},\n}", "trailing comma"},
		{"trailing comma in an array", `{"config_load_paths": ["a", ]}`, "trailing comma"},
		{"other syntax error", `{"conversation": }`, ""},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			ws, opts := testWorkspace(t)
			write(t, filepath.Join(ws, ".jp", "config.json"), tc.doc)
			_, err := Load(opts)
			var list diag.List
			if !errors.As(err, &list) || len(list) != 1 || list[0].Rule != RuleSyntax || list[0].Pos.Line == 0 {
				t.Fatalf("err = %#v", err)
			}
			if got := list[0].Help; tc.help == "" && got != "" || !strings.Contains(got, tc.help) {
				t.Errorf("help %q, want one about %q", got, tc.help)
			}
		})
	}
	t.Run("empty file", func(t *testing.T) {
		ws, opts := testWorkspace(t)
		write(t, filepath.Join(ws, ".jp", "config.json"), "")
		l, err := Load(opts)
		if err != nil || len(l.Diagnostics) != 0 || len(l.Layers) != 1 {
			t.Fatalf("err %v, diagnostics %v, layers %v", err, l.Diagnostics, l.Layers)
		}
	})
}
