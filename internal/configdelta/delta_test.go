package configdelta

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/policy"
	"github.com/jp-policy/jp-policy/internal/tomlpos"
)

func parse(t *testing.T, doc string) (*Outcome, []*InvalidError) {
	t.Helper()
	o, env, err := ParseOutcome("o.json", []byte(doc))
	if err != nil {
		t.Fatalf("ParseOutcome(%s): %v", doc, err)
	}
	return o, env
}

func leafList(ls []Leaf) string {
	var out []string
	for _, l := range ls {
		s := l.Op + " " + l.Display() + " @" + l.Pointer
		if l.Merge != "" {
			s += " (" + l.Merge + ")"
		}
		out = append(out, s)
	}
	return strings.Join(out, "; ")
}

func TestEnumerate(t *testing.T) {
	tests := []struct {
		name, config, unset string
		want                string // leaves
		invalid             string // "" or a substring of every... the first error, with its pointer
	}{
		{name: "rfd leaf example",
			config: `{"assistant":{"model":{"id":{"provider":"anthropic","name":"sonnet"},"parameters":{"temperature":1.0}}}}`,
			want:   "write assistant.model.id.provider @/config/assistant/model/id/provider; write assistant.model.id.name @/config/assistant/model/id/name; write assistant.model.parameters.temperature @/config/assistant/model/parameters/temperature"},
		{name: "alias expands to both leaves",
			config: `{"assistant":{"model":{"id":"sonnet"}}}`,
			want:   "write assistant.model.id.provider @/config/assistant/model/id; write assistant.model.id.name @/config/assistant/model/id"},
		{name: "provider/name string",
			config: `{"assistant":{"model":{"id":"openai/gpt-5"}}}`,
			want:   "write assistant.model.id.provider @/config/assistant/model/id; write assistant.model.id.name @/config/assistant/model/id"},
		{name: "alias definition",
			config: `{"providers":{"llm":{"aliases":{"fast":"anthropic/claude-haiku-4-5"}}}}`,
			want:   "write providers.llm.aliases.fast.provider @/config/providers/llm/aliases/fast; write providers.llm.aliases.fast.name @/config/providers/llm/aliases/fast"},
		{name: "only the fields present are leaves",
			config: `{"assistant":{"model":{"id":{"name":"opus"}}}}`,
			want:   "write assistant.model.id.name @/config/assistant/model/id/name"},
		{name: "vec is one leaf, appended",
			config: `{"conversation":{"attachments":["a.md","b.md"]}}`,
			want:   "write conversation.attachments @/config/conversation/attachments (append)"},
		{name: "vec merge form",
			config: `{"assistant":{"instructions":{"value":[],"strategy":"prepend","dedup":"inherit"}}}`,
			want:   "write assistant.instructions @/config/assistant/instructions/value (prepend)"},
		{name: "map entries and open parts",
			config: `{"conversation":{"tools":{"x":{"enable":false,"command":{"program":"a","args":["b"]}}}},"template":{"values":{"k":1}}}`,
			want:   "write conversation.tools.x.enable @/config/conversation/tools/x/enable; write conversation.tools.x.command.program @/config/conversation/tools/x/command/program; write conversation.tools.x.command.args @/config/conversation/tools/x/command/args; write template.values.k @/config/template/values/k"},
		{name: "an empty entry creates it",
			config: `{"conversation":{"tools":{"new":{}}}}`,
			want:   "write conversation.tools.new @/config/conversation/tools/new"},
		{name: "empty struct changes nothing",
			config: `{"assistant":{}}`},
		{name: "pointer escapes",
			config: `{"template":{"values":{"a~b/c":1}}}`,
			want:   "write template.values.a~b/c @/config/template/values/a~0b~1c"},
		{name: "unsets",
			unset: `["assistant.model.parameters.temperature","conversation.attachments[\"x.md\"]","conversation.tools.web","assistant.model.id","assistant.instructions[\"Rust\"]"]`,
			want:  `delete assistant.model.parameters.temperature @/unset/0; delete conversation.attachments["x.md"] @/unset/1; delete conversation.tools.web @/unset/2; delete assistant.model.id @/unset/3; delete assistant.instructions["Rust"] @/unset/4`},

		{name: "unknown field", config: `{"assistant":{"nam":"x"}}`, invalid: `/config/assistant/nam: unknown config field "assistant.nam"`},
		{name: "unknown top", config: `{"asistant":{}}`, invalid: `/config/asistant: unknown config field`},
		{name: "scalar type", config: `{"assistant":{"model":{"parameters":{"top_k":1.5}}}}`, invalid: "/config/assistant/model/parameters/top_k: assistant.model.parameters.top_k must be integer, not number"},
		{name: "struct type", config: `{"assistant":"x"}`, invalid: "/config/assistant: assistant is a group of fields"},
		{name: "map type", config: `{"conversation":{"tools":[]}}`, invalid: "/config/conversation/tools: conversation.tools is a map"},
		{name: "vec type", config: `{"conversation":{"attachments":"a.md"}}`, invalid: "/config/conversation/attachments: conversation.attachments is a list"},
		{name: "vec item type", config: `{"config_load_paths":[1]}`, invalid: "/config/config_load_paths/0: items of config_load_paths must be string"},
		{name: "vec strategy", config: `{"conversation":{"attachments":{"value":[],"strategy":"merge"}}}`, invalid: "/config/conversation/attachments/strategy: strategy must be one of"},
		{name: "merge form needs value", config: `{"conversation":{"attachments":{"strategy":"replace"}}}`, invalid: `needs "value"`},
		{name: "provider enum", config: `{"assistant":{"model":{"id":{"provider":"bogus"}}}}`, invalid: `/config/assistant/model/id/provider: unknown variant "bogus"`},
		{name: "alias target is an id", config: `{"providers":{"llm":{"aliases":{"fast":"haiku"}}}}`, invalid: `/config/providers/llm/aliases/fast: alias target "haiku" is not provider/name`},
		{name: "provider in string", config: `{"assistant":{"model":{"id":"bogus/x"}}}`, invalid: `unknown provider "bogus"`},
		{name: "dotted key", config: `{"assistant.name":"x"}`, invalid: `/config/assistant.name: key "assistant.name" cannot be part of a dotted config path`},
		{name: "star key", config: `{"conversation":{"tools":{"*":{"run":"ask"}}}}`, invalid: "/config/conversation/tools/*: a write to the '*' key cannot be checked"},
		{name: "tools schema", config: `{"conversation":{"tools":{"x":{"source":"mcp"}}}}`, invalid: "/config/conversation/tools/x/source: "},
		{name: "unset struct", unset: `["assistant"]`, invalid: "/unset/0: assistant is a group of fields"},
		{name: "unset element on dup", unset: `["editor.envs[\"A\"]"]`, invalid: "/unset/0: editor.envs has no element identity"},
		{name: "unset element on scalar", unset: `["assistant.name[\"A\"]"]`, invalid: "/unset/0: assistant.name has no element identity"},
		{name: "unset unknown", unset: `["assistant.model.parameter"]`, invalid: `/unset/0: unset of unknown config field "assistant.model.parameter"`},
		{name: "unset syntax", unset: `["a..b"]`, invalid: "/unset/0: "},
		{name: "unset not string", unset: `[1]`, invalid: "/unset/0: an unset entry must be a string"},
		{name: "unset not array", unset: `"assistant.name"`, invalid: `/unset: "unset" must be an array`},
		{name: "config not object", config: `[]`, invalid: `/config: "config" must be an object`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := `{"type":"success","content":""`
			if tc.config != "" {
				doc += `,"config":` + tc.config
			}
			if tc.unset != "" {
				doc += `,"unset":` + tc.unset
			}
			o, env := parse(t, doc+"}")
			leaves, invalid, _ := Enumerate(o, nil)
			invalid = append(env, invalid...)
			if tc.invalid != "" {
				if len(invalid) == 0 {
					t.Fatalf("no error; leaves %s", leafList(leaves))
				}
				got := invalid[0].Pointer + ": " + invalid[0].Message
				if !strings.Contains(got, tc.invalid) {
					t.Fatalf("error %q, want it to contain %q", got, tc.invalid)
				}
				return
			}
			if len(invalid) > 0 {
				t.Fatalf("unexpected error: %v", invalid[0])
			}
			if got := leafList(leaves); got != tc.want {
				t.Errorf("leaves:\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestParseOutcomeEnvelope(t *testing.T) {
	for doc, want := range map[string]string{
		`{"content":""}`:                        `the outcome has no "type"`,
		`{"type":1}`:                            `"type" must be a string`,
		`{"type":"done"}`:                       `unknown outcome type "done"`,
		`{"type":"needs_input","unset":["a"]}`:  `"unset" is only allowed on a "success" outcome, not "needs_input"`,
		`{"type":"error","config":{}}`:          `"config" is only allowed on a "success" outcome`,
		`{"type":"success","config":null}`:      "",
		`{"type":"success","unset":null}`:       "",
		`{"type":"success","content":"","x":1}`: "",
	} {
		o, env := parse(t, doc)
		switch {
		case want == "" && len(env) > 0:
			t.Errorf("%s: unexpected %v", doc, env[0])
		case want != "" && (len(env) == 0 || !strings.Contains(env[0].Message, want)):
			t.Errorf("%s: got %v, want %q", doc, env, want)
		case want == "" && (o.Config != nil || len(o.Unset) > 0):
			t.Errorf("%s: a null config or unset must be no delta", doc)
		}
	}
	for _, doc := range []string{"", "[]", "null", "{", `{"type":"success"} x`} {
		if _, _, err := ParseOutcome("o.json", []byte(doc)); err == nil {
			t.Errorf("ParseOutcome(%q): no syntax error", doc)
		}
	}
}

func TestCheck(t *testing.T) {
	rule := func(path string, w policy.ConfigWrite, del bool, apply string) policy.ConfigRule {
		return policy.ConfigRule{Path: path, Write: w, Delete: del, Apply: apply}
	}
	rfd := `{"type":"success","content":"","config":{"assistant":{"model":{"id":"sonnet"}}},"unset":["assistant.model.parameters.temperature","conversation.attachments[\"stale-file.md\"]"]}`
	tests := []struct {
		name   string
		rules  []policy.ConfigRule
		doc    string
		allow  bool
		reason string
		apply  string
	}{
		{"rfd change_model rule", []policy.ConfigRule{rule("assistant.model", policy.ConfigWriteAllow, false, "ask")}, rfd, false, ReasonUnauthorized, ""},
		{"all granted, one ask", []policy.ConfigRule{rule("assistant.model", policy.ConfigWriteAllow, true, "unattended"), rule("conversation.attachments", "", true, "")}, rfd, true, "", "ask"},
		{"all unattended", []policy.ConfigRule{rule("assistant.model", policy.ConfigWriteAllow, true, "unattended"), rule("conversation.attachments", "", true, "unattended")}, rfd, true, "", "unattended"},
		{"no rules", nil, rfd, false, ReasonUnauthorized, ""},
		{"empty outcome", nil, `{"type":"success","content":""}`, true, "", ApplyNone},
		{"error outcome without config", nil, `{"type":"error","content":"x"}`, true, "", ApplyNone},
		{"invalid wins over denied", nil, `{"type":"success","config":{"assistant":{"nope":1}},"unset":["assistant.name"]}`, false, ReasonInvalid, ""},
		{"name rule does not cover provider", []policy.ConfigRule{rule("assistant.model.id.name", policy.ConfigWriteAllow, false, "unattended")}, `{"type":"success","config":{"assistant":{"model":{"id":"sonnet"}}}}`, false, ReasonUnauthorized, ""},
		// write = true on a path that reaches the sensitive one, and '*' on
		// a struct, are config errors when the access object is read (as
		// in JP), so no delta is judged against them.
		{"sensitive needs insecure_allow", []policy.ConfigRule{rule("conversation.tools", policy.ConfigWriteAllow, false, "unattended")}, `{"type":"success","config":{"conversation":{"tools":{"t":{"access":{"fs":[]}}}}}}`, false, refusedRules, ""},
		{"sensitive with insecure_allow", []policy.ConfigRule{rule("conversation.tools", policy.ConfigWriteInsecureAllow, false, "unattended")}, `{"type":"success","config":{"conversation":{"tools":{"t":{"access":{"fs":[]}}}}}}`, true, "", "unattended"},
		{"write true on a path reaching the sensitive one", []policy.ConfigRule{rule("conversation.tools", policy.ConfigWriteAllow, false, "unattended")}, `{"type":"success","config":{"conversation":{"tools":{"t":{"enable":true}}}}}`, false, refusedRules, ""},
		{"write true fine off the sensitive path", []policy.ConfigRule{rule("conversation.tools.*.enable", policy.ConfigWriteAllow, false, "unattended")}, `{"type":"success","config":{"conversation":{"tools":{"t":{"enable":true}}}}}`, true, "", "unattended"},
		{"wildcard on a map", []policy.ConfigRule{rule("conversation.tools.*.enable", policy.ConfigWriteAllow, false, "unattended")}, `{"type":"success","config":{"conversation":{"tools":{"t":{"enable":true}}}}}`, true, "", "unattended"},
		{"wildcard on a struct", []policy.ConfigRule{rule("assistant.*", policy.ConfigWriteAllow, false, "unattended")}, `{"type":"success","config":{"assistant":{"name":"x"}}}`, false, refusedRules, ""},
		{"longest prefix deny", []policy.ConfigRule{rule("conversation.tools", policy.ConfigWriteInsecureAllow, false, ""), rule("conversation.tools.x.access", "", false, "")}, `{"type":"success","config":{"conversation":{"tools":{"x":{"access":{"fs":[]}}}}}}`, false, ReasonUnauthorized, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, err := policy.NewChecker(t.TempDir(), &policy.AccessPolicy{Config: tc.rules})
			if tc.reason == refusedRules {
				if err == nil {
					t.Fatal("the checker accepted rules JP refuses when it loads them")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			o, env := parse(t, tc.doc)
			r := Check(k, o, env, nil)
			if r.Allowed != tc.allow || r.Reason != tc.reason || r.Apply != tc.apply {
				var b strings.Builder
				_ = r.WriteText(&b)
				t.Fatalf("got allowed=%v reason=%q apply=%q, want %v %q %q\n%s", r.Allowed, r.Reason, r.Apply, tc.allow, tc.reason, tc.apply, b.String())
			}
			// The JSON contract always parses and keeps its lists non-null.
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"leaves", "errors", "warnings"} {
				if _, ok := m[k].([]any); !ok {
					t.Errorf("%s is %v, want a list", k, m[k])
				}
			}
		})
	}
}

func TestAliasNote(t *testing.T) {
	a := NewAliases(map[string]string{"sonnet": "anthropic/claude-sonnet-4-5"}, "test aliases")
	o, _ := parse(t, `{"type":"success","config":{"assistant":{"model":{"id":"sonnet"}}}}`)
	leaves, _, _ := Enumerate(o, a)
	if len(leaves) != 2 || !strings.Contains(leaves[0].Note, "resolves to anthropic/claude-sonnet-4-5") {
		t.Fatalf("leaves %+v", leaves)
	}
	o, _ = parse(t, `{"type":"success","config":{"assistant":{"model":{"id":"opus"}}}}`)
	leaves, _, _ = Enumerate(o, a)
	if !strings.Contains(leaves[0].Note, "needs resolution") {
		t.Fatalf("unknown alias note %q", leaves[0].Note)
	}
	leaves, _, _ = Enumerate(o, nil)
	if !strings.Contains(leaves[0].Note, "no workspace config was read") {
		t.Fatalf("no-alias-map note %q", leaves[0].Note)
	}
}

// FuzzOutcome: no outcome document panics the parser, the validator or
// the engine; every error points at a node of the document; every leaf is
// a path the config engine accepts (so no leaf escapes authorization by
// being unaskable), and invalid input never yields "allowed".
func FuzzOutcome(f *testing.F) {
	for _, s := range []string{
		`{"type":"success","content":"","config":{"assistant":{"model":{"id":"sonnet"}}},"unset":["assistant.model.parameters.temperature","conversation.attachments[\"stale-file.md\"]"]}`,
		`{"type":"success","config":{"conversation":{"tools":{"x":{"access":{"config":[{"path":"a","write":"insecure_allow"}]}}}}}}`,
		`{"type":"error","config":{}}`,
		`{"type":"success","config":{"a.b":{"":1}},"unset":[1,"a[\"\"]"]}`,
		`{"type":"success","config":{"conversation":{"attachments":{"value":[1],"strategy":"x"}}}}`,
	} {
		f.Add(s)
	}
	k, err := policy.NewChecker(f.TempDir(), &policy.AccessPolicy{Config: []policy.ConfigRule{{Path: "assistant", Write: policy.ConfigWriteAllow, Delete: true}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		o, env, err := ParseOutcome("f.json", []byte(doc))
		if err != nil {
			return
		}
		root, err := tomlpos.ParseJSON("f.json", []byte(doc))
		if err != nil {
			t.Fatalf("ParseOutcome accepted what ParseJSON refuses: %v", err)
		}
		r := Check(k, o, env, nil)
		for _, e := range r.Invalid {
			if !resolves(root, e.Pointer) {
				t.Fatalf("error %v: pointer %q is not in the document", e, e.Pointer)
			}
		}
		for _, l := range r.Leaves {
			if err := policy.ValidateConfigPath(l.Path); err != nil || strings.Contains(l.Path, "*") {
				t.Fatalf("leaf %q is not an askable config path", l.Path)
			}
			if !resolves(root, l.Pointer) {
				t.Fatalf("leaf %q: pointer %q is not in the document", l.Path, l.Pointer)
			}
		}
		if len(r.Invalid) > 0 && r.Allowed {
			t.Fatal("an invalid delta was allowed")
		}
	})
}

// resolves reports whether a JSON pointer names a node of root.
func resolves(root *tomlpos.Node, ptr string) bool {
	if ptr == "" {
		return true
	}
	if !strings.HasPrefix(ptr, "/") {
		return false
	}
	var toks []string
	for tok := range strings.SplitSeq(ptr[1:], "/") {
		toks = append(toks, strings.NewReplacer("~1", "/", "~0", "~").Replace(tok))
	}
	_, n := root.Lookup(toks)
	return n == len(toks)
}

func TestSensitiveDeleteNote(t *testing.T) {
	k, err := policy.NewChecker(t.TempDir(), &policy.AccessPolicy{Config: []policy.ConfigRule{{Path: "conversation.tools", Delete: true, Apply: "unattended"}}})
	if err != nil {
		t.Fatal(err)
	}
	o, env := parse(t, `{"type":"success","unset":["conversation.tools.x.access","conversation.tools.x.enable"]}`)
	r := Check(k, o, env, nil)
	if !r.Allowed || len(r.Leaves) != 2 {
		t.Fatalf("result %+v", r)
	}
	if !strings.Contains(r.Leaves[0].Note, "sensitive path") || r.Leaves[1].Note != "" {
		t.Errorf("notes %q, %q: want one on the access removal only", r.Leaves[0].Note, r.Leaves[1].Note)
	}
}

// refusedRules marks a case whose rules policy.NewChecker refuses.
const refusedRules = "refused by the checker"
