package config

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/tomlpos"
)

func TestSchemaIsValidJSON(t *testing.T) {
	var v map[string]any
	if err := json.Unmarshal(Schema(), &v); err != nil {
		t.Fatal(err)
	}
	if _, err := schema(); err != nil {
		t.Fatal(err)
	}
}

func TestSuggest(t *testing.T) {
	tests := []struct{ key, want string }{
		{"raed", "read"}, {"exec", "execute"}, {"extrenal", "external"}, {"zzzz", ""}, {"wr", ""},
	}
	for _, tc := range tests {
		if got := suggest(tc.key, knownRuleKeys["fs"]); got != tc.want {
			t.Errorf("suggest(%q) = %q, want %q", tc.key, got, tc.want)
		}
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name, doc string
		want      []string // substrings of the one-line diagnostics, in order
	}{
		{"fixture-like keys are accepted", `
[conversation.tools.x]
source = "mcp.bookworm.crate_readme"
enable = "explicit"
style.inline_results = "off"
parameters.path.type = "string"
[conversation.tools.'*']
run = "ask"
[providers.llm]
x = 1
`, nil},
		{"bare mcp", "conversation.tools.x.source = \"mcp\"\n", []string{"f:1:31: error: conversation.tools.x.source"}},
		{"builtin tool ok", "conversation.tools.x.source = \"builtin.fs\"\n", nil},
		{"port range", "conversation.tools.x.access.net = [{ host = \"h\", port = 65536 }]\n", []string{"f:1:57: error:", "65535"}},
		{"insecure_allow ok", "conversation.tools.x.access.config = [{ path = \"a\", write = \"insecure_allow\", apply = \"unattended\" }]\n", nil},
		{"unknown access key", "conversation.tools.x.access.fss = []\n", []string{`f:1:29: error: unknown key "fss" in access [JP003]`}},
		{"external must be bool", "conversation.tools.x.access.fs = [{ path = \"a\", external = 1 }]\n", []string{"fs[0].external: expected boolean"}},
		{"merged unknown key", "conversation.tools.x.access.fs = { strategy = \"replace\", values = [] }\n", []string{`unknown key "values" in access.fs (merge table)`}},
		{"dedup inherit ok", "conversation.tools.x.access.fs = { dedup = \"inherit\", value = [] }\n", nil},
		{"nan port", "conversation.tools.x.access.net = [{ host = \"h\", port = nan }]\n", []string{"port: must be <= 65535"}},
		{"inf is not a string", "conversation.tools.x.run = inf\n", []string{"run: expected string, but got number"}},
		{"extends entry", "extends = [{ path = \"a.toml\", stratgy = \"after\" }]\n", []string{`unknown key "stratgy" in an extends entry`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root, err := tomlpos.ParseTOML("f", []byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			got := validate(root)
			if len(tc.want) == 0 && len(got) > 0 {
				t.Fatalf("unexpected: %v", got)
			}
			all := got.Error()
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("missing %q in:\n%s", w, all)
				}
			}
		})
	}
}
