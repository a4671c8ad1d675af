package config

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/suggest"
	"github.com/jp-policy/jp-policy/internal/tomlpos"
)

// The keys JP accepts in a JP_CFG_ variable or a --cfg KEY=VALUE outside
// conversation.tools, as a tree of JP's AssignKeyValue impls (jp_config
// at 4c1c39f1: lib.rs PartialAppConfig, assistant.rs, assistant/*.rs,
// conversation.rs, conversation/{attachment,compaction,label,title}.rs,
// conversation/title/generate.rs, editor.rs, interrupt.rs, model.rs,
// model/{id,parameters}.rs, plugins.rs, plugins/command.rs, providers.rs,
// providers/llm.rs, providers/llm/*.rs, providers/mcp.rs, style.rs,
// style/*.rs, template.rs, types/command.rs, user.rs). conversation.tools
// itself is walked by kvWalk (env_native.go), which models its values.
//
// JP refuses an assignment to any other key (missing_key), and
// PartialAppConfig::from_envs propagates the error, so JP does not start;
// jp-policy refuses it too (JP002), naming the variable or argument.
//
// Each node lists its match arms in JP's order: an exact arm ("name" =>)
// compares the whole remaining key, a prefix arm (`_ if kv.p("name")`)
// matches the segment alone or followed by the delimiter and hands the
// rest on. Where JP's answer depends on the value built so far (a
// `command` that is a string or a table, a model id or an alias), the
// object form's keys are accepted: jp-policy cannot see every layer's
// value of keys it does not model, and refuses only keys no value
// accepts. TestJPKeys holds one row per arm kind and names the JP file.

// kvLeaf is how JP reads the value of a key that ends at a leaf: the
// try_* method of KvAssignment it calls.
type kvLeaf uint8

const (
	leafNone         kvLeaf = iota
	leafString              // try_some_string
	leafBool                // try_some_bool
	leafU32                 // try_some_u32
	leafI32                 // try_some_i32
	leafF32                 // try_some_f32
	leafFromStr             // try_some_from_str
	leafObject              // try_object
	leafObjOrStr            // try_(some_)object_or_from_str
	leafBoolOrStr           // try_some_bool_or_from_str
	leafNumOrStr            // try_some_number_or_from_str
	leafObjBoolOrStr        // try_some_object_bool_or_from_str
	leafAny                 // JsonValue, plugin options: any value
	leafStrings             // try_(some_)vec_of_strings
)

// kvArmKind is the shape of one match arm.
type kvArmKind uint8

const (
	armExact      kvArmKind = iota // "key" => a leaf
	armPrefixLeaf                  // _ if kv.p("key") => a leaf (the rest of the key is ignored)
	armNested                      // _ if kv.p("key") => self.key.assign(kv)
	armVecNested                   // _ if kv.p("key") => kv.try_vec_of_nested(...)
	armVecStrings                  // _ if kv.p("key") => kv.try_(some_)vec_of_strings(...)
	armEntry                       // _ if kv.p("key") => kv.assign_to_entry(map)
	armAnyRest                     // _ if kv.p("key") => anything below is taken (JsonValue)
)

type kvArm struct {
	kind  kvArmKind
	key   string
	leaf  kvLeaf
	child *kvNode
}

// kvNode is one AssignKeyValue impl.
type kvNode struct {
	name string // JP's type, for messages
	// whole is the leaf kind when the "" arm takes the value whole
	// (`*self = kv.try_object_or_from_str()?`); leafNone when it is
	// try_merge_object, which spreads an object's members as key paths.
	whole kvLeaf
	arms  []kvArm
	// other is the `_ =>` arm when it is not missing_key: the key goes on
	// to another impl (an untagged enum's object form).
	other *kvNode
	// anyOther: `_ => kv.assign_to_entry(JsonValue map)` (model
	// parameters' `other`): every key is taken.
	anyOther bool
}

func exact(key string, l kvLeaf) kvArm        { return kvArm{kind: armExact, key: key, leaf: l} }
func nested(key string, c *kvNode) kvArm      { return kvArm{kind: armNested, key: key, child: c} }
func vecNested(key string, c *kvNode) kvArm   { return kvArm{kind: armVecNested, key: key, child: c} }
func vecStrings(key string) kvArm             { return kvArm{kind: armVecStrings, key: key, leaf: leafStrings} }
func entry(key string, c *kvNode) kvArm       { return kvArm{kind: armEntry, key: key, child: c} }
func prefixLeaf(key string, l kvLeaf) kvArm   { return kvArm{kind: armPrefixLeaf, key: key, leaf: l} }
func anyRest(key string) kvArm                { return kvArm{kind: armAnyRest, key: key, leaf: leafAny} }
func node(name string, arms ...kvArm) *kvNode { return &kvNode{name: name, arms: arms} }
func wholeNode(name string, w kvLeaf, other *kvNode, arms ...kvArm) *kvNode {
	return &kvNode{name: name, whole: w, other: other, arms: arms}
}

// jpKeys holds the tree, built on first use: it is only walked for a
// JP_CFG_ variable or --cfg argument outside conversation.tools, and
// building it at every start (exec included) would cost every run.
var jpKeys struct {
	sync.Once
	root *kvNode
}

// jpRoot returns PartialAppConfig's tree without conversation.tools.
func jpRoot() *kvNode {
	jpKeys.Do(func() { jpKeys.root = buildJPKeys() })
	return jpKeys.root
}

func buildJPKeys() *kvNode {
	jsonValue := &kvNode{name: "JsonValue", anyOther: true, whole: leafAny}
	modelIDOrAlias := wholeNode("PartialModelIdOrAliasConfig", leafObjOrStr, nil, exact("provider", leafFromStr), exact("name", leafFromStr))
	customReasoning := node("PartialCustomReasoningConfig", exact("effort", leafFromStr), exact("exclude", leafBool))
	parameters := node("PartialParametersConfig",
		exact("max_tokens", leafU32), exact("temperature", leafF32), exact("top_p", leafF32), exact("top_k", leafU32),
		vecStrings("stop_words"), nested("reasoning", wholeNode("PartialReasoningConfig", leafObjOrStr, customReasoning)))
	parameters.anyOther = true
	model := node("PartialModelConfig",
		nested("id", modelIDOrAlias),
		nested("parameters", parameters))
	request := node("PartialRequestConfig",
		exact("max_retries", leafU32), exact("base_backoff_ms", leafU32), exact("max_backoff_secs", leafU32),
		exact("stream_idle_timeout_secs", leafU32), exact("max_response_bytes", leafU32), exact("cache", leafBoolOrStr))
	section := wholeNode("PartialSectionConfig", leafObjOrStr, nil,
		exact("tag", leafString), exact("title", leafString), exact("content", leafString), exact("position", leafI32))
	sectionOrString := wholeNode("PartialSectionConfigOrString", leafObjOrStr, section)
	contrast := node("PartialContrastConfig", exact("good", leafString), exact("bad", leafString), exact("reason", leafString))
	example := wholeNode("PartialExampleConfig", leafObjOrStr, contrast)
	instructions := wholeNode("PartialInstructionsConfig", leafObjOrStr, nil,
		exact("title", leafString), exact("description", leafString), vecStrings("items"), vecNested("examples", example))
	assistant := node("PartialAssistantConfig",
		exact("name", leafString), exact("system_prompt", leafObjOrStr),
		vecNested("instructions", instructions), vecNested("system_prompt_sections", sectionOrString),
		exact("tool_choice", leafFromStr), nested("model", model), nested("request", request))
	assistantOverride := node("PartialAssistantOverrideConfig",
		exact("system_prompt", leafString), vecNested("system_prompt_sections", sectionOrString),
		exact("tool_choice", leafFromStr), nested("model", model), nested("request", request))
	command := wholeNode("PartialCommandConfigOrString", leafObjOrStr,
		node("PartialCommandConfig", exact("program", leafString), vecStrings("args"), exact("shell", leafBool)))
	attachment := wholeNode("PartialAttachmentConfig", leafObjOrStr,
		node("PartialAttachmentObjectConfig", exact("kind", leafString), exact("path", leafString), exact("params", leafObject)))
	summary := node("PartialSummaryConfig", nested("model", model), exact("instructions", leafString), exact("context", leafString))
	compactionRule := node("PartialCompactionRuleConfig",
		exact("keep_first", leafFromStr), exact("keep_last", leafFromStr), exact("reasoning", leafFromStr),
		exact("tool_calls", leafFromStr), nested("summary", summary))
	labelCommand := node("PartialLabelCommand", nested("cmd", command))
	labelObject := node("PartialLabelObject",
		nested("value", wholeNode("PartialLabelValue", leafObjOrStr, labelCommand)),
		nested("apply_on", node("PartialApplyOn", exact("new", leafBool), exact("fork", leafBool))),
		exact("run", leafFromStr))
	conversation := node("PartialConversationConfig",
		nested("title", node("PartialTitleConfig", exact("from_heading", leafBool),
			nested("generate", node("PartialGenerateConfig", exact("auto", leafBool), nested("model", model))))),
		// tools: kvWalk (env_native.go)
		nested("compaction", node("PartialCompactionConfig", vecNested("rules", compactionRule))),
		vecNested("attachments", attachment),
		entry("labels", wholeNode("PartialLabelConfig", leafObjOrStr, labelObject)),
		nested("inquiry", node("PartialInquiryConfig", nested("assistant", assistantOverride))),
		prefixLeaf("start_local", leafBool),
		exact("default_id", leafFromStr))
	progress := func(name string) *kvNode {
		return node(name, exact("show", leafBool), exact("delay_secs", leafU32), exact("interval_ms", leafU32))
	}
	style := node("PartialStyleConfig",
		nested("code", node("PartialCodeConfig", exact("color", leafBool), exact("line_numbers", leafBool),
			exact("file_link", leafFromStr), exact("copy_link", leafFromStr))),
		nested("inline_code", node("PartialInlineCodeConfig", exact("background", leafNumOrStr))),
		nested("markdown", node("PartialMarkdownConfig", exact("wrap_width", leafFromStr),
			exact("table_max_column_width", leafFromStr), exact("table_continuation_edge", leafFromStr),
			exact("theme", leafFromStr), exact("hr_style", leafFromStr))),
		nested("mcp_startup", progress("PartialMcpStartupConfig")),
		nested("reasoning", node("PartialReasoningConfig", exact("display", leafFromStr),
			exact("background", leafNumOrStr), exact("extend_across_tool_calls", leafBool),
			nested("summary_model", model))),
		nested("lock_wait", node("PartialLockWaitConfig", exact("show", leafBool), exact("delay_secs", leafU32),
			exact("interval_ms", leafU32), exact("timeout_secs", leafU32))),
		nested("streaming", node("PartialStreamingConfig", nested("progress", progress("PartialProgressConfig")))),
		nested("tool_call", node("PartialToolCallConfig", exact("show", leafBool),
			nested("progress", progress("PartialProgressConfig")), nested("preparing", progress("PartialPreparingConfig")))),
		nested("typewriter", node("PartialTypewriterConfig", exact("text_delay", leafFromStr),
			exact("code_delay", leafFromStr), exact("max_latency", leafFromStr))))
	interruptAction := func(name string) *kvNode {
		return node(name, exact("action", leafFromStr), exact("compose_in_editor", leafBoolOrStr))
	}
	interrupt := node("PartialInterruptConfig", exact("escalation_cooldown_secs", leafU32),
		nested("streaming", interruptAction("PartialStreamingInterruptConfig")),
		nested("tool_call", interruptAction("PartialToolInterruptConfig")))
	editor := node("PartialEditorConfig", nested("cmd", command), vecStrings("envs"),
		nested("inline", node("PartialInlineEditorConfig", exact("edit_mode", leafFromStr))))
	template := node("PartialTemplateConfig", entry("values", jsonValue))
	keyURL := func(name string, extra ...kvArm) *kvNode {
		return node(name, append([]kvArm{exact("api_key_env", leafString), exact("base_url", leafString)}, extra...)...)
	}
	checksum := node("PartialChecksumConfig", exact("algorithm", leafFromStr), exact("value", leafString))
	llm := node("PartialLlmProviderConfig",
		entry("aliases", modelIDOrAlias),
		nested("anthropic", keyURL("PartialAnthropicConfig", exact("chain_on_max_tokens", leafBool), exact("beta_headers", leafStrings))),
		nested("cerebras", keyURL("PartialCerebrasConfig")),
		nested("deepseek", keyURL("PartialDeepseekConfig")),
		nested("google", keyURL("PartialGoogleConfig")),
		nested("llamacpp", node("PartialLlamacppConfig", exact("base_url", leafString))),
		nested("ollama", node("PartialOllamaConfig", exact("base_url", leafString))),
		nested("openai", keyURL("PartialOpenaiConfig", exact("base_url_env", leafString))),
		nested("openrouter", keyURL("PartialOpenrouterConfig", exact("app_name", leafString), exact("app_referrer", leafString))))
	stdio := node("PartialStdioConfig", exact("command", leafFromStr), vecStrings("args"), vecStrings("env"),
		nested("binary_checksum", checksum), exact("optional", leafBool), exact("startup_timeout_secs", leafU32))
	providers := node("PartialProviderConfig", nested("llm", llm), entry("mcp", stdio))
	plugins := node("PartialPluginsConfig", exact("auto_install", leafBool), exact("shutdown_timeout_secs", leafFromStr),
		entry("command", node("PartialCommandPluginConfig", exact("install", leafBool), exact("run", leafFromStr),
			nested("checksum", checksum), anyRest("options"))))
	return node("PartialAppConfig",
		exact("inherit", leafBool),
		// config_load_paths: kvWalk.root
		nested("assistant", assistant),
		nested("conversation", conversation),
		nested("style", style),
		nested("interrupt", interrupt),
		nested("editor", editor),
		nested("template", template),
		nested("providers", providers),
		nested("plugins", plugins),
		nested("user", node("PartialUserConfig", exact("name", leafString))))
}

// jpToolStyle is a tool's (or the tools defaults') `style` key:
// PartialToolConfig's `_ if kv.p("style")` arm and
// PartialDisplayStyleConfig (conversation/tool/style.rs).
func jpToolStyle() *kvNode {
	return node("PartialToolConfig",
		nested("style", node("PartialDisplayStyleConfig", exact("hidden", leafBool),
			exact("inline_results", leafFromStr), exact("results_file_link", leafFromStr),
			exact("parameters", leafFromStr),
			nested("error", node("PartialErrorStyleConfig", exact("inline_results", leafFromStr),
				exact("results_file_link", leafFromStr))))))
}

// jpChild is the node a prefix arm of n hands key on to.
func jpChild(n *kvNode, key string) *kvNode {
	for _, a := range n.arms {
		if a.key == key && a.child != nil {
			return a.child
		}
	}
	return nil
}

// jpKeyError is JP's missing_key or type error for an assignment, named
// by the variable or --cfg argument it came from.
func jpKeyError(nv nativeValue, msg, help string) error {
	where, fix := nv.file, "remove the argument or fix its key (`jp config show` prints JP's keys)"
	if name, ok := strings.CutPrefix(nv.file, "env:"); ok {
		where, fix = name, "unset the variable or fix its name: JP reads JP_CFG_<KEY>, `_` between key segments (`jp config show` prints JP's keys)"
	}
	if help != "" {
		fix = help + " Otherwise " + fix
	}
	return diag.List{{Pos: nv.pos(), Severity: diag.Error, Rule: RuleSchema,
		Message: fmt.Sprintf("%s: %s; JP refuses it and does not start", where, msg),
		Help:    fix}}
}

// unknownJPKey is missing_key at node n, with the closest key JP has there.
func (w *kvWalk) unknownJPKey(n *kvNode, path, full string, nv nativeValue) error {
	seg, _, _ := strings.Cut(path, w.delim)
	under := strings.TrimSuffix(strings.TrimSuffix(full, path), w.delim)
	where := "at the top level"
	if under != "" {
		where = "under " + under
	}
	var keys []string
	for _, a := range n.arms {
		keys = append(keys, a.key)
	}
	if n.other != nil {
		for _, a := range n.other.arms {
			keys = append(keys, a.key)
		}
	}
	help := ""
	if c := suggest.Closest(seg, keys); len(c) > 0 {
		help = fmt.Sprintf("did you mean %q?", c[0])
	}
	return jpKeyError(nv, fmt.Sprintf("JP has no key %q %s", path, where), help)
}

// checkKV walks path below n as JP's assign would, returning JP's
// refusal. full is the key as written, for messages.
func (w *kvWalk) checkKV(n *kvNode, path, full string, nv nativeValue) error {
	if path == "" {
		if n.whole != leafNone {
			return w.checkLeaf(n.whole, full, nv)
		}
		if n.anyOther {
			return nil
		}
		// try_merge_object: every member is a key path at this node.
		if nv.json == nil || nv.json.Kind != tomlpos.Table {
			return jpKeyError(nv, fmt.Sprintf("%s takes a JSON object here (a value starting with ':'), not %s", describe(full), valueKind(nv)), "")
		}
		for _, k := range nv.json.Keys {
			if err := w.checkKV(n, k, join(full, k, w.delim), nv.child(nv.json.Fields[k])); err != nil {
				return err
			}
		}
		return nil
	}
	for _, a := range n.arms {
		if a.kind == armExact {
			if path == a.key {
				return w.checkLeaf(a.leaf, full, nv)
			}
			continue
		}
		rest, ok := w.cut(path, a.key)
		if !ok {
			continue
		}
		switch a.kind {
		case armPrefixLeaf:
			return w.checkLeaf(a.leaf, full, nv)
		case armAnyRest:
			return nil
		case armNested:
			return w.checkKV(a.child, rest, full, nv)
		case armVecStrings:
			return w.checkVec(nil, rest, full, nv)
		case armVecNested:
			return w.checkVec(a.child, rest, full, nv)
		case armEntry:
			if rest == "" {
				// The whole map: each member of an object is one entry.
				if nv.json == nil || nv.json.Kind != tomlpos.Table {
					return jpKeyError(nv, fmt.Sprintf("%s takes a JSON object of entries, not %s", describe(full), valueKind(nv)), "")
				}
				for _, k := range nv.json.Keys {
					if err := w.checkKV(a.child, "", join(full, k, w.delim), nv.child(nv.json.Fields[k])); err != nil {
						return err
					}
				}
				return nil
			}
			_, sub, _ := strings.Cut(rest, w.delim)
			return w.checkKV(a.child, sub, full, nv)
		}
	}
	if n.anyOther {
		return nil
	}
	if n.other != nil {
		return w.checkKV(n.other, path, full, nv)
	}
	return w.unknownJPKey(n, path, full, nv)
}

// checkVec is try_vec / try_vec_of_nested: an index into the list built
// so far (which jp-policy cannot see, so any index is taken), or the
// whole list.
func (w *kvWalk) checkVec(item *kvNode, rest, full string, nv nativeValue) error {
	if rest != "" {
		seg, sub, _ := strings.Cut(rest, w.delim)
		if _, err := strconv.ParseUint(seg, 10, 64); err != nil {
			return jpKeyError(nv, fmt.Sprintf("%s is a list: the key may go on only with an index, not %q", describe(strings.TrimSuffix(strings.TrimSuffix(full, rest), w.delim)), seg), "")
		}
		if item == nil || sub == "" {
			return nil
		}
		return w.checkKV(item, sub, full, nv)
	}
	if nv.json == nil || nv.json.Kind == tomlpos.String {
		return nil // comma-separated
	}
	if nv.json.Kind != tomlpos.Array {
		return jpKeyError(nv, fmt.Sprintf("%s takes a string or an array, not %s", describe(full), valueKind(nv)), "")
	}
	for _, it := range nv.json.Items {
		c := nv.child(it)
		switch {
		case item == nil && it.Kind != tomlpos.String:
			return jpKeyError(c, fmt.Sprintf("%s takes strings, not %s", describe(full), valueKind(c)), "")
		case item != nil && it.Kind == tomlpos.Table:
			for _, k := range it.Keys {
				if err := w.checkKV(item, k, join(full, k, w.delim), c.child(it.Fields[k])); err != nil {
					return err
				}
			}
		case item != nil && it.Kind != tomlpos.String:
			return jpKeyError(c, fmt.Sprintf("%s takes strings or objects, not %s", describe(full), valueKind(c)), "")
		}
	}
	return nil
}

// checkLeaf is the type check of JP's try_* method for a leaf. The
// contents of a string JP parses further (FromStr: an enum, a duration)
// are not checked.
func (w *kvWalk) checkLeaf(l kvLeaf, full string, nv nativeValue) error {
	j := nv.json
	null := j != nil && j.Kind == tomlpos.Null
	bad := func(need string) error {
		return jpKeyError(nv, fmt.Sprintf("%s takes %s, not %s", describe(full), need, valueKind(nv)), "")
	}
	switch l {
	case leafAny, leafNone:
		return nil
	case leafString, leafFromStr:
		if j == nil || null || j.Kind == tomlpos.String {
			return nil
		}
		return bad("a string")
	case leafBool:
		switch {
		case j == nil:
			if nv.str == "true" || nv.str == "false" {
				return nil
			}
			return bad("true or false")
		case null || j.Kind == tomlpos.Bool:
			return nil
		}
		return bad("a boolean")
	case leafU32, leafI32:
		switch {
		case j == nil:
			bits := 32
			var err error
			if l == leafU32 {
				_, err = strconv.ParseUint(nv.str, 10, bits)
			} else {
				_, err = strconv.ParseInt(nv.str, 10, bits)
			}
			if err == nil {
				return nil
			}
			return bad("an integer")
		case null, j.Kind == tomlpos.Integer && (l == leafI32 || j.Int >= 0):
			return nil
		}
		return bad("an integer")
	case leafF32:
		switch {
		case j == nil:
			if _, err := strconv.ParseFloat(nv.str, 32); err == nil || strings.Contains(err.Error(), "range") {
				return nil
			}
			return bad("a number")
		case null || j.Kind == tomlpos.Float:
			return nil
		}
		return bad("a float (JSON: with a fraction or exponent)")
	case leafObject:
		if j != nil && j.Kind == tomlpos.Table {
			return nil
		}
		return bad("a JSON object")
	case leafObjOrStr:
		if j == nil || null || j.Kind == tomlpos.Table || j.Kind == tomlpos.String {
			return nil
		}
		return bad("a string or a JSON object")
	case leafBoolOrStr:
		if j == nil || null || j.Kind == tomlpos.Bool || j.Kind == tomlpos.String {
			return nil
		}
		return bad("a boolean or a string")
	case leafNumOrStr:
		if j == nil || null || j.Kind == tomlpos.Integer || j.Kind == tomlpos.Float || j.Kind == tomlpos.String {
			return nil
		}
		return bad("a number or a string")
	case leafObjBoolOrStr:
		if j == nil || null || j.Kind == tomlpos.Table || j.Kind == tomlpos.Bool || j.Kind == tomlpos.String {
			return nil
		}
		return bad("a boolean, a string or a JSON object")
	case leafStrings:
		return w.checkVec(nil, "", full, nv)
	}
	return nil
}

func describe(full string) string {
	if full == "" {
		return "the config root"
	}
	return full
}

func valueKind(nv nativeValue) string {
	if nv.json == nil {
		return fmt.Sprintf("the string %q", nv.str)
	}
	return "a JSON " + nv.json.Kind.String()
}

func join(full, k, delim string) string {
	if full == "" {
		return k
	}
	return full + delim + k
}
