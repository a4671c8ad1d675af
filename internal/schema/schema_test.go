package schema

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/tomlpos"
)

func TestSchemaIsValidJSON(t *testing.T) {
	var v map[string]any
	if err := json.Unmarshal(Schema(), &v); err != nil {
		t.Fatal(err)
	}
	if _, err := loadSchema(); err != nil {
		t.Fatal(err)
	}
}

func TestClosestKey(t *testing.T) {
	tests := []struct{ key, want string }{
		{"raed", "read"}, {"exec", "execute"}, {"extrenal", "external"}, {"zzzz", ""}, {"wr", ""},
		{"delet", "delete"}, {"wirte", "write"}, {"red", "read"}, {"path", ""}, {"", ""},
	}
	for _, tc := range tests {
		if got := closestKey(tc.key, knownRuleKeys("fs")); got != tc.want {
			t.Errorf("closestKey(%q) = %q, want %q", tc.key, got, tc.want)
		}
	}
	if got := closestKey("sensitiv_paths", accessKeys); got != "sensitive_paths" {
		t.Errorf("sensitiv_paths: got %q", got)
	}
	if got := closestKey("stratgy", []string{"path", "strategy"}); got != "strategy" {
		t.Errorf("stratgy: got %q", got)
	}
}

func TestSwapped(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"raed", "read", true}, {"ab", "ba", true}, {"read", "read", false}, {"abc", "acd", false},
		{"", "", false}, {"a", "a", false}, {"abcd", "badc", false}, {"rade", "read", false},
	} {
		if got := swapped(tc.a, tc.b); got != tc.want {
			t.Errorf("swapped(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// validateCases are documents with the diagnostics they must produce; the
// oracle test reuses their inputs.
var validateCases = []struct {
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
	{"unknown access key", "conversation.tools.x.access.fss = []\n", []string{`f:1:29: error: unknown key "fss" in access [JP003]`, `did you mean "fs"?`}},
	{"external must be bool", "conversation.tools.x.access.fs = [{ path = \"a\", external = 1 }]\n", []string{"fs[0].external: expected boolean"}},
	{"merged unknown key", "conversation.tools.x.access.fs = { strategy = \"replace\", values = [] }\n", []string{`unknown key "values" in access.fs (merge table)`, `did you mean "value"?`}},
	{"dedup inherit ok", "conversation.tools.x.access.fs = { dedup = \"inherit\", value = [] }\n", nil},
	{"nan port", "conversation.tools.x.access.net = [{ host = \"h\", port = nan }]\n", []string{"port: must be <= 65535 but found nan"}},
	{"negative inf port", "conversation.tools.x.access.net = [{ host = \"h\", port = -inf }]\n", []string{"port: must be >= 1 but found -inf"}},
	{"inf is not a string", "conversation.tools.x.run = inf\n", []string{"run: expected string, but got number"}},
	{"extends entry", "extends = [{ path = \"a.toml\", stratgy = \"after\" }]\n", []string{`unknown key "stratgy" in an extends entry`, `did you mean "strategy"?`}},
	{"float port with zero fraction is an integer", "conversation.tools.x.access.net = [{ host = \"h\", port = 443.0 }]\n", nil},
	{"fractional port", "conversation.tools.x.access.net = [{ host = \"h\", port = 443.5 }]\n", []string{"port: expected integer, but got number"}},
	{"date is no string", "conversation.tools.x.access.fs = [{ path = 1979-05-27 }]\n", []string{"fs[0].path: expected string, but got datetime"}},
	{"several unknown keys", "conversation.tools.x.access.fs = [{ path = \"a\", raed = true, exec = true }]\n",
		[]string{`f:1:49: error: unknown key "raed"`, `did you mean "read"?`, `f:1:62: error: unknown key "exec"`, `did you mean "execute"?`}},
	{"missing required", "conversation.tools.x.access.env = [{ read = true }]\n", []string{"access.env[0]: missing properties: 'name'"}},
	{"enum", "conversation.tools.x.access.config = [{ path = \"a\", apply = \"never\" }]\n", []string{`apply: value must be one of "ask", "unattended"`}},
	{"enum friendly", "conversation.tools.x.access.config = [{ path = \"a\", write = \"yes\" }]\n", []string{`write must be true, false or "insecure_allow", not "yes"`}},
	{"empty host", "conversation.tools.x.access.net = [{ host = \"\" }]\n", []string{"host: length must be >= 1, but got 0"}},
	{"env prefix pattern", "conversation.tools.x.access.env = [{ name = \"A*B\" }]\n", []string{`'*' may only appear once`}},
	{"quoted key path", "conversation.tools.'a.b'.access.fs = [{ path = 1 }]\n", []string{"conversation.tools.'a.b'.access.fs[0].path: expected string, but got number"}},
	// JP's schematic config rejects unknown fields at every level, so JP
	// refuses to load these; jp-policy reports them with a suggestion.
	{"unknown top-level and conversation keys", "whatever = 1\nconversation.other = 2\n", []string{
		`f:1:1: error: unknown key "whatever" in (top level)`, `f:2:14: error: unknown key "other" in conversation`}},
	{"JP's other keys keep any value", "assistant.model.id = \"x\"\nstyle = { a = 1 }\nconversation.title.generate = true\nconversation.attachments = []\n[conversation.tools.t]\nsource = \"local\"\nsummary = \"s\"\nstyle.hidden = true\noptions.x = 1\nparameters.p = { type = \"string\" }\n", nil},
	{"misspelt access", "[[conversation.tools.t.acess.fs]]\npath = \"src\"\n", []string{
		`f:1:24: error: unknown key "acess" in conversation.tools.t`, `help: did you mean "access"?`}},
	{"misspelt tools", "[conversation.tool.t]\nsource = \"local\"\n", []string{
		`f:1:15: error: unknown key "tool" in conversation`, `help: did you mean "tools"?`}},
	{"misspelt key in the defaults", "[conversation.tools.'*']\nrnu = \"ask\"\n", []string{
		`f:2:1: error: unknown key "rnu" in conversation.tools.'*'`, `help: did you mean "run"?`}},
	// RFD 081 / JP's EnableConfig (tool.rs): the table form.
	{"enable table", "[conversation.tools.t]\nsource = \"local\"\nenable = { state = false, allow_toggle = \"if_named\" }\n", nil},
	{"enable table bad toggle", "[conversation.tools.t]\nsource = \"local\"\nenable = { allow_toggle = \"sometimes\" }\n", []string{"conversation.tools.t.enable.allow_toggle"}},
	{"enable table unknown key", "[conversation.tools.t]\nsource = \"local\"\nenable = { stat = true }\n", []string{`unknown key "stat"`, `did you mean "state"?`}},
	{"enable bad string", "[conversation.tools.t]\nsource = \"local\"\nenable = \"sometimes\"\n", []string{`"sometimes" is not an enable value`}},
	// JP's ToolSource splits at the first dot only: the tool may hold dots.
	{"source with dotted tool", "[conversation.tools.t]\nsource = \"local.my.tool\"\n", nil},
	// Keys the RFDs define but JP does not have yet stay accepted.
	{"RFD keys", "[conversation.tools.t]\nsource = \"local\"\naccess.net = []\naccess.env = []\naccess.config = []\naccess.commands = {}\n", nil},
	{"extends string empty", "extends = [\"\"]\n", []string{"extends[0]: length must be >= 1, but got 0"}},
	{"empty tool name", "conversation.tools.''.source = \"\"\n", []string{"f:1:32: error: conversation.tools.''.source: \"\" is not a valid tool source"}},
	{"tools not a table", "conversation.tools = 1\n", []string{"conversation.tools: expected object, but got number"}},
}

func TestValidate(t *testing.T) {
	for _, tc := range validateCases {
		t.Run(tc.name, func(t *testing.T) {
			root, err := tomlpos.ParseTOML("f", []byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			got := Validate(root)
			if len(tc.want) == 0 && len(got) > 0 {
				t.Fatalf("unexpected: %v", got)
			}
			if len(tc.want) > 0 && len(got) == 0 {
				t.Fatalf("no diagnostics, want %q", tc.want)
			}
			var b strings.Builder
			for _, d := range got {
				b.WriteString(d.String() + "\n")
				if d.Help != "" {
					b.WriteString("    help: " + d.Help + "\n")
				}
			}
			all := b.String()
			rest := all
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Errorf("missing %q (in order) in:\n%s", w, all)
					continue
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

// BenchmarkValidate validates one layer of 200 tools with 2 rules each,
// valid and with one error in every tool.
func BenchmarkValidate(b *testing.B) {
	for _, bad := range []bool{false, true} {
		var sb strings.Builder
		for i := range 200 {
			fmt.Fprintf(&sb, "[conversation.tools.tool_%03d]\nsource = \"local\"\nrun = \"ask\"\n", i)
			fmt.Fprintf(&sb, "[[conversation.tools.tool_%03d.access.fs]]\npath = \"src/%d\"\nread = true\nwrite = true\n", i, i)
			port := 443
			if bad {
				port = 0
			}
			fmt.Fprintf(&sb, "[[conversation.tools.tool_%03d.access.net]]\nhost = \"h.example\"\nport = %d\nallow = true\n", i, port)
		}
		root, err := tomlpos.ParseTOML("f", []byte(sb.String()))
		if err != nil {
			b.Fatal(err)
		}
		name := "valid"
		if bad {
			name = "invalid"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if got := Validate(root); len(got) != map[bool]int{false: 0, true: 200}[bad] {
					b.Fatalf("%d diagnostics", len(got))
				}
			}
		})
	}
}
