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

// TestLayerExtensions: JP's loader picks a file's format from its
// extension exactly (schematic's should_parse): `.jsonc` is JSON, and
// `.TOML` or `.Json` is no format at all, so JP refuses the file; a layer
// of byte order marks alone is an empty JSON layer.
func TestLayerExtensions(t *testing.T) {
	for _, tc := range []struct {
		name, file, content string
		ok                  bool
	}{
		{"jsonc is JSON", "a.jsonc", `{"conversation": {}}`, true},
		{"upper-case TOML", "a.TOML", "[conversation]\n", false},
		{"mixed-case JSON", "a.Json", `{}`, false},
		{"byte order marks only", "a.json", "\ufeff\ufeff", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, opts := testWorkspace(t)
			write(t, filepath.Join(ws, ".jp", "config.toml"), `extends = ["`+tc.file+`"]`)
			write(t, filepath.Join(ws, ".jp", tc.file), tc.content)
			l, err := Load(opts)
			if tc.ok {
				if err != nil || len(l.Diagnostics) != 0 || len(l.Layers) != 2 {
					t.Fatalf("err %v, diagnostics %v, layers %v", err, l.Diagnostics, l.Layers)
				}
				return
			}
			var list diag.List
			if !errors.As(err, &list) || len(list) != 1 || list[0].Rule != RuleExtension {
				t.Fatalf("err = %#v, want JP006", err)
			}
		})
	}
}
