package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/diag"
)

// Tests translated from JP's own (jp_config at 4c1c39f1), each named after
// the JP test or code it follows.

// TestVecWithStrategyDiscardedByMissingList follows vec_with_strategy
// (internal/merge/vec.rs: "If prev is default, replace regardless of
// strategy") with schematic's merge_nested_map_setting, which runs it on
// every merge of two AccessConfig partials: a partial's `fs` is never
// absent (MergeableVec::default() is an empty Vec), so a later layer's
// `access` table without `fs` drops a discard_when_merged value.
func TestVecWithStrategyDiscardedByMissingList(t *testing.T) {
	base := "[conversation.tools.t.access]\nfs = { value = [{ path = \"placeholder\", read = true }], discard_when_merged = true }\n"
	tests := []struct {
		name     string
		later    []string
		fs       string // paths left
		implicit int    // implicit drops recorded
	}{
		{"an access table without fs", []string{"[conversation.tools.t.access]\n"}, "", 1},
		{"access = {}", []string{"conversation.tools.t.access = {}\n"}, "", 1},
		{"an access table with only net", []string{"conversation.tools.t.access.net = [{ host = \"x.org\" }]\n"}, "", 1},
		{"a later fs list replaces it (test_default_vec: default with next string)", []string{"[[conversation.tools.t.access.fs]]\npath = \"src\"\n"}, "src", 0},
		{"once dropped, later lists append (the empty next is no default)", []string{"conversation.tools.t.access = {}\n", "[[conversation.tools.t.access.fs]]\npath = \"src\"\n"}, "src", 1},
		{"a table without access changes nothing", []string{"conversation.tools.t.run = \"ask\"\n"}, "placeholder", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := mergeDocs(t, append([]string{base}, tc.later...)...)
			a := l.Tools["t"].Access
			var paths []string
			for _, r := range a.FS {
				paths = append(paths, r.Path)
			}
			n := 0
			for _, r := range a.Replaced {
				if r.Implicit {
					n++
					if r.Reason != "discard_when_merged" || !r.Empty || len(r.Dropped) != 1 {
						t.Errorf("replacement %+v", r)
					}
				}
			}
			if strings.Join(paths, " ") != tc.fs || n != tc.implicit {
				t.Errorf("fs %v, %d implicit drops; want %q, %d", paths, n, tc.fs, tc.implicit)
			}
		})
	}
}

// TestApplyCfgArgsAssignsIntoBuiltConfig follows jp_cli's
// config_pipeline.rs apply_cfg_args: `--cfg KEY=VALUE` is assigned into
// the config built so far (PartialAppConfig::assign), not merged as a
// partial, so it drops no discard_when_merged list it does not name;
// while a JP_CFG_ variable for the same list builds a fresh env partial
// (from_envs) that is merged over the files and drops it
// (JP_CFG_CONVERSATION_TOOLS_T_ACCESS_FS set empty).
func TestApplyCfgArgsAssignsIntoBuiltConfig(t *testing.T) {
	ws, opts := testWorkspace(t)
	write(t, filepath.Join(ws, ".jp", "config.toml"), "[conversation.tools.t]\nsource = \"local\"\n[conversation.tools.t.access.fs]\ndiscard_when_merged = true\nvalue = [{ path = \"src\", read = true }]\n")
	opts.Cfg = []string{"conversation.tools.t.access.env=HOME"}
	l, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if fs := l.Tools["t"].Access.FS; len(fs) != 1 {
		t.Errorf("--cfg access.env dropped the fs rules: %+v", fs)
	}
	opts.Cfg = nil
	vars := map[string]string{"JP_CFG_CONVERSATION_TOOLS_T_ACCESS_FS": ""}
	base := opts.Getenv
	opts.Getenv = func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		return base(k)
	}
	opts.Environ = func() []string { return []string{"JP_CFG_CONVERSATION_TOOLS_T_ACCESS_FS="} }
	l, err = Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	a := l.Tools["t"].Access
	if len(a.FS) != 0 || len(a.Replaced) != 1 || !a.Replaced[0].Empty || a.Replaced[0].By.File != "env:JP_CFG_CONVERSATION_TOOLS_T_ACCESS_FS" {
		t.Errorf("an empty JP_CFG_ fs list must drop the discard_when_merged rules: fs %+v replaced %+v", a.FS, a.Replaced)
	}
	if _, ok := l.Env["JP_CFG_CONVERSATION_TOOLS_T_ACCESS_FS"]; !ok {
		t.Error("an empty JP_CFG_ variable must be a staleness input")
	}
}

// TestEnableConfigFromStr follows test_enable_config_from_str
// (conversation/tool_tests.rs): the state each string gives.
func TestEnableConfigFromStr(t *testing.T) {
	for s, want := range map[string]bool{"true": true, "on": true, "always": true, "false": false, "off": false, "explicit": false} {
		if got, ok := EnableFromStr(s); !ok || got != want {
			t.Errorf("%q: %v %v, want %v", s, got, ok, want)
		}
	}
	for _, s := range []string{"invalid", "TRUE", "1", ""} {
		if _, ok := EnableFromStr(s); ok {
			t.Errorf("%q must be refused", s)
		}
	}
}

// TestEnableEffectiveFillsFromDefaultsThenFallback follows
// test_enable_effective_fills_from_defaults_then_fallback and
// test_enable_cross_key_defaults_inheritance (conversation/tool_tests.rs)
// for the state, and test_enable_cross_layer_merge_preserves_other_field
// for a table that sets only allow_toggle.
func TestEnableEffectiveFillsFromDefaultsThenFallback(t *testing.T) {
	tests := []struct {
		name string
		docs []string
		want bool
	}{
		{"nothing set: enabled", []string{"conversation.tools.t.source = \"local\"\n"}, true},
		{"enable = false", []string{"conversation.tools.t.enable = false\n"}, false},
		{"\"off\"", []string{"conversation.tools.t.enable = \"off\"\n"}, false},
		{"\"false\"", []string{"conversation.tools.t.enable = \"false\"\n"}, false},
		{"\"explicit\" is off unless named", []string{"conversation.tools.t.enable = \"explicit\"\n"}, false},
		{"\"always\"", []string{"conversation.tools.t.enable = \"always\"\n"}, true},
		{"{ state = false }", []string{"conversation.tools.t.enable = { state = false }\n"}, false},
		{"bar: inherits '*'.enable = false", []string{"conversation.tools.'*'.enable = false\nconversation.tools.t.source = \"local\"\n"}, false},
		{"'*' as a string", []string{"conversation.tools.'*'.enable = \"explicit\"\nconversation.tools.t.source = \"local\"\n"}, false},
		{"foo: its own state wins over '*'", []string{"conversation.tools.'*'.enable = { state = false, allow_toggle = \"if_named\" }\nconversation.tools.t.enable = { state = true }\n"}, true},
		{"a table with only allow_toggle inherits '*'", []string{"conversation.tools.'*'.enable = false\nconversation.tools.t.enable = { allow_toggle = \"never\" }\n"}, false},
		{"allow_toggle in a later layer keeps the state", []string{"conversation.tools.t.enable = { state = false }\n", "conversation.tools.t.enable = { allow_toggle = \"never\" }\n"}, false},
		{"a bool in a later layer sets the state", []string{"conversation.tools.t.enable = \"off\"\n", "conversation.tools.t.enable = true\n"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := mergeDocs(t, tc.docs...)
			if got := EffectiveEnable(l.Tools["t"], l.Defaults).State; got != tc.want {
				t.Errorf("enabled %v, want %v", got, tc.want)
			}
		})
	}
}

// TestPartialAppConfigAssign follows test_partial_app_config_assign
// (lib_tests.rs), and TestEnsureNoMissingAssignments follows
// test_ensure_no_missing_assignments: every key JP's assign takes is
// taken (a field per AssignKeyValue impl), and a key it does not have is
// refused, in --cfg and in a variable (missing_key; from_envs propagates
// the error, so JP does not start).
func TestPartialAppConfigAssign(t *testing.T) {
	ok := []string{
		"inherit=true",
		"config_load_paths=foo,bar",
		"assistant.name=foo",
		`assistant:={"name":"bar","system_prompt":"baz"}`,
	}
	for _, kv := range ok {
		if err := cfgKV(kv); err != nil {
			t.Errorf("%s: %v", kv, err)
		}
	}
	if err := cfgKV("config_load_paths:=[true]"); err == nil || !strings.Contains(err.Error(), "takes strings") {
		t.Errorf("config_load_paths:=[true]: %v, want JP's type error (need string)", err)
	}
}

func cfgKV(arg string) error {
	if strings.HasPrefix(arg, "{") {
		_, err := assignKV("--cfg", "", ".", true, false, 1, arg)
		return err
	}
	key, raw, merge, col, val, _ := splitCfgKV(arg)
	_, err := assignKV("--cfg "+key, key, ".", raw, merge, col, val)
	return err
}

func TestEnsureNoMissingAssignments(t *testing.T) {
	// One or more keys of each AssignKeyValue impl (jp_config at
	// 4c1c39f1), with a value of the type it takes.
	fields := []string{
		"inherit=false", "config_load_paths+=x",
		"assistant.name=n", "assistant.system_prompt=p", "assistant.instructions=a,b", "assistant.instructions.0.title=t",
		`assistant.instructions:=[{"title":"t","items":["i"],"examples":[{"good":"g","bad":"b"}]}]`,
		"assistant.system_prompt_sections=s", "assistant.tool_choice=auto",
		"assistant.model.id=anthropic/claude", "assistant.model.id.provider=openai", "assistant.model.parameters.max_tokens=10",
		"assistant.model.parameters.temperature=0.5", "assistant.model.parameters.reasoning=off",
		"assistant.model.parameters.reasoning.effort=high", "assistant.model.parameters.anything_else=1",
		"assistant.model.parameters.stop_words=a,b", "assistant.request.max_retries=3", "assistant.request.cache=true",
		"conversation.title.from_heading=true", "conversation.title.generate.auto=false", "conversation.title.generate.model.id=x/y",
		"conversation.compaction.rules.0.keep_first=1", `conversation.compaction.rules:=[{"keep_last":"2","summary":{"instructions":"i"}}]`,
		"conversation.attachments=file:a", "conversation.labels.bug.run=ask", "conversation.labels.bug.value.cmd=echo",
		"conversation.labels.bug.apply_on.new=true", "conversation.inquiry.assistant.system_prompt=x",
		"conversation.inquiry.assistant.model.id=a/b", "conversation.start_local=true", "conversation.default_id=last",
		"style.code.color=false", "style.code.file_link=off", "style.inline_code.background=236", "style.markdown.theme=x",
		"style.mcp_startup.show=true", "style.reasoning.display=full", "style.reasoning.summary_model.id=a/b",
		"style.lock_wait.timeout_secs=5", "style.streaming.progress.show=true", "style.tool_call.preparing.delay_secs=1",
		"style.typewriter.text_delay=1ms",
		"interrupt.escalation_cooldown_secs=1", "interrupt.streaming.action=stop", "interrupt.tool_call.compose_in_editor=true",
		"editor.cmd=vim", "editor.cmd.program=vim", "editor.envs=EDITOR", "editor.inline.edit_mode=vi",
		"template.values.name=x", `template.values:={"a":{"b":1}}`,
		"providers.llm.aliases.fast=a/b", "providers.llm.anthropic.api_key_env=K", "providers.llm.anthropic.beta_headers=a",
		"providers.llm.cerebras.base_url=u", "providers.llm.deepseek.base_url=u", "providers.llm.google.api_key_env=K",
		"providers.llm.llamacpp.base_url=u", "providers.llm.ollama.base_url=u", "providers.llm.openai.base_url_env=U",
		"providers.llm.openrouter.app_name=n", "providers.mcp.srv.command=x", "providers.mcp.srv.args=a,b",
		"providers.mcp.srv.binary_checksum.value=v", "providers.mcp.srv.startup_timeout_secs=3",
		"plugins.auto_install=true", "plugins.command.fmt.install=true", "plugins.command.fmt.options.deep.key=1",
		"user.name=me",
		"conversation.tools.t.style.hidden=true", "conversation.tools.t.style.error.inline_results=off",
		"conversation.tools.t.format=ask", "conversation.tools.t.summary=s", `conversation.tools.t.parameters:={}`,
		"conversation.tools.t.options.x.y=1",
	}
	for _, kv := range fields {
		if err := cfgKV(kv); err != nil {
			t.Errorf("%s: %v", kv, err)
		}
	}
}

// TestMissingKeyRefused: keys JP's assign does not have (missing_key),
// and JP's type errors, refused with the variable or argument named.
// test_tool_config_json_merge_unknown_key_errors (tool_tests.rs) is the
// tool-level case.
func TestMissingKeyRefused(t *testing.T) {
	cfg := map[string]string{
		"foo.bar=1":                                   `JP has no key "foo.bar" at the top level`,
		"conversation.bogus=1":                        `JP has no key "bogus" under conversation`,
		"conversation.toolsx.t.run=ask":               `JP has no key "toolsx.t.run" under conversation`,
		"assistant.nmae=x":                            `JP has no key "nmae" under assistant`,
		`{"a":{"b":"c"}}`:                             `JP has no key "a" at the top level`,
		"extends=x.toml":                              `JP has no key "extends"`,
		"assistant.name.x=1":                          `JP has no key "name.x" under assistant`,
		"style.code.color=maybe":                      `takes true or false`,
		"assistant.request.max_retries=-1":            `takes an integer`,
		`conversation.tools.t:={"bogus":"val"}`:       `JP has no key "bogus"`,
		"conversation.tools.t.style.hiden=true":       `did you mean "hidden"?`,
		"conversation.labels.x.nope=1":                `JP has no key "nope"`,
		"providers.llm.openai.model=x":                `JP has no key "model" under providers.llm.openai`,
		"assistant.instructions.first.title=x":        `may go on only with an index`,
		`assistant.model.parameters.temperature:=1`:   `takes a float`,
		`conversation.tools.t.parameters:="not json"`: `takes a JSON object`,
	}
	for kv, want := range cfg {
		err := cfgKV(kv)
		var list diag.List
		if !errors.As(err, &list) || !strings.Contains(list[0].Message+" "+list[0].Help, want) {
			t.Errorf("%s: %v, want %q", kv, err, want)
		}
	}
	env := map[string]string{
		"JP_CFG_BOGUS":                       `JP_CFG_BOGUS: JP has no key "bogus" at the top level`,
		"JP_CFG_CONVERSATION_BOGUS":          `JP has no key "bogus" under conversation`,
		"JP_CFG_ASSISTANT_NMAE":              `JP has no key "nmae" under assistant`,
		"JP_CFG_CONVERSATION_TOOLS_T_RUN":    `conversation.tools.t.run is empty`,
		"JP_CFG_CONVERSATION_TOOLS_T_SOURCE": `conversation.tools.t.source is empty`,
	}
	for name, want := range env {
		value := "1"
		if strings.HasSuffix(name, "_RUN") || strings.HasSuffix(name, "_SOURCE") {
			value = ""
		}
		_, err := nativeEntries(name, value)
		var list diag.List
		if !errors.As(err, &list) || !strings.Contains(list[0].Message, want) {
			t.Errorf("%s=%s: %v, want %q", name, value, err, want)
		}
	}
	// Read as JP reads them: JP's keys jp-policy does not model.
	for name, value := range map[string]string{"JP_CFG_ASSISTANT_NAME": "x", "JP_CFG_STYLE_CODE_COLOR": "false", "JP_CFG_CONVERSATION_START_LOCAL": "true", "JP_CFG_CONVERSATION_TOOLS_T_ACCESS_FS": ""} {
		if _, err := nativeEntries(name, value); err != nil {
			t.Errorf("%s=%s: %v", name, value, err)
		}
	}
}

// TestKvAssignmentTryLeaves follows assignment_tests.rs
// test_kv_assignment_try_bool, test_kv_assignment_try_u32,
// test_kv_assignment_try_string and
// test_assign_to_entry_scalar_with_empty_key_errors, through keys whose
// impls call those methods.
func TestKvAssignmentTryLeaves(t *testing.T) {
	tests := []struct {
		kv string
		ok bool
	}{
		{"style.code.color=true", true},
		{"style.code.color=false", true},
		{"style.code.color=1", false},       // str::parse::<bool>
		{"style.code.color=True", false},    // case-sensitive
		{"style.code.color:=true", true},    // JSON bool
		{`style.code.color:="true"`, false}, // a JSON string is not a bool
		{"style.code.color:=null", true},    // try_some_*: None
		{"assistant.request.max_retries=42", true},
		{"assistant.request.max_retries=-1", false},
		{"assistant.request.max_retries:=-1", false}, // not is_u64
		{"assistant.request.max_retries:=1.5", false},
		{"assistant.name:=1", false}, // try_string: a JSON number
		{`assistant.name:="x"`, true},
		{"template.values=x", false},        // assign_to_entry: a scalar for the whole map
		{`template.values:={"a": 1}`, true}, // the whole map as an object
		{"template.values.a.b.c=1", true},   // JsonValue takes any path
		{"assistant.instructions.0.items=a,b", true},
		{"assistant.instructions.x=1", false}, // try_vec: a segment that is not an index
	}
	for _, tc := range tests {
		if err := cfgKV(tc.kv); (err == nil) != tc.ok {
			t.Errorf("%s: %v, want ok=%v", tc.kv, err, tc.ok)
		}
	}
}

// FuzzJPKeys: walking any key and value through JP's key tree never
// panics, and a refusal is always a JP002 finding naming the argument.
func FuzzJPKeys(f *testing.F) {
	for _, s := range []string{"assistant.name=x", "foo.bar=1", "conversation.labels.x.value.cmd.args.0=a", "plugins.command..options=1", "providers.mcp=1", "style=", ".=", "a..b=c", `{"assistant":{"model":{"id":{"provider":1}}}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		if !strings.Contains(arg, "=") && !strings.HasPrefix(arg, "{") {
			return
		}
		err := cfgKV(arg)
		if err == nil {
			return
		}
		var list diag.List
		if errors.As(err, &list) && (len(list) == 0 || list[0].Rule == "") {
			t.Fatalf("%q: a finding without a rule: %v", arg, err)
		}
	})
}
