package config

import (
	"fmt"
	"strings"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/tomlpos"
)

// JP's own form of the variables, as its KvAssignment reads them
// (jp_config assignment.rs, try_from_env; PartialAppConfig::from_envs):
//
//	JP_CFG_CONVERSATION_TOOLS_<TOOL>_<FIELD>=[+][:]<value>
//	JP_CFG_CONVERSATION_TOOLS_<TOOL>=:<json object>
//	JP_CFG_CONVERSATION_TOOLS=:<json object of tools>
//	JP_CFG_CONVERSATION=:<json object with a "tools" member>
//
// The key is lower-cased (A-Z only) and walked as JP's AssignKeyValue
// impls walk it (kvWalk): a tool is the first segment after TOOLS, in the
// name and in an object member's name alike, so only jp-policy's own `__`
// form reaches a tool whose name has an underscore. FIELD is RUN, SOURCE,
// ENABLE, ENABLE_STATE, ENABLE_ALLOW_TOGGLE, COMMAND, ACCESS, ACCESS_FS,
// and jp-policy's ACCESS_NET, ACCESS_ENV, ACCESS_CONFIG,
// ACCESS_SENSITIVE_PATHS and ACCESS_COMMANDS_<PROGRAM>. A leading ':'
// makes the value JSON; `\:` and `\+` escape the modifiers.
//
// JP assigns every variable into a fresh, empty env layer and then merges
// that layer over the files like any other: a list value therefore
// appends to the files' rules (a plain array), and '+' only decides
// whether it appends to or replaces what an earlier variable put in the
// same list. A plain string for a list is split on commas, each piece one
// rule naming its path (or host, or name).

// envAssign is one value for the env layer, under conversation.tools.<tool>
// (tool "": key is config_load_paths).
type envAssign struct {
	tool string
	key  []string
	v    *tomlpos.Node // nil: a key jp-policy does not support
	// list marks a list value (a plain array); merge appends it to what an
	// earlier variable put in the same list instead of replacing that.
	list, merge bool
}

// nativeListKey names the key that identifies an element of an access
// list of this kind. A switch, not a package-level map: those are built by
// code at every jp-policy start.
func nativeListKey(kind string) (string, bool) {
	switch kind {
	case "fs", "config":
		return "path", true
	case "net":
		return "host", true
	case "env":
		return "name", true
	case "sensitive_paths":
		return "", true
	}
	return "", false
}

// nativeValue is a variable's value after its modifiers: JSON (json set)
// or a plain string.
type nativeValue struct {
	file  string // positions' file: "env:NAME" or "--cfg KEY"
	json  *tomlpos.Node
	str   string
	col   int
	merge bool
}

func (nv nativeValue) pos() diag.Position { return diag.Position{File: nv.file, Line: 1, Col: nv.col} }

func (nv nativeValue) child(n *tomlpos.Node) nativeValue {
	return nativeValue{file: nv.file, json: n, col: n.Pos.Col, merge: nv.merge}
}

func nativeEntries(name, value string) ([]envAssign, error) {
	raw, merge, col, val := nativePrefix(value)
	return assignKV("env:"+name, asciiLower(strings.TrimPrefix(name, EnvPrefix)), "_", raw, merge, col, val)
}

// asciiLower is Rust's to_ascii_lowercase, which JP applies to a
// variable's name: only A-Z change. strings.ToLower would also fold
// letters such as U+212A (Kelvin sign) to "k", naming a tool JP does not.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// assignKV applies one of JP's key-value assignments (KvAssignment): key
// is the path below the config root with delim between segments ("_" for
// a variable, "." for --cfg KEY=VALUE), val the value after its
// modifiers, starting at column col of file.
func assignKV(file, key, delim string, raw, merge bool, col int, val string) ([]envAssign, error) {
	nv := nativeValue{file: file, str: val, col: col, merge: merge}
	if raw {
		n, err := envJSONValue(file, val, col)
		if err != nil {
			return nil, err
		}
		nv.json = n
	}
	w := kvWalk{delim: delim}
	err := w.root(key, nv)
	return w.out, err
}

// kvWalk follows a key down JP's config types as their AssignKeyValue
// impls do (jp_config lib.rs, conversation.rs, conversation/tool.rs,
// conversation/tool/access.rs): at each level a segment is matched with
// KvKey::trim_prefix (the segment alone, or followed by the delimiter),
// a JSON object with an empty key is spread over its members
// (try_merge_object), and each member's name is then read as a key path
// with the same delimiter. So in a variable an object member "x_access"
// of conversation.tools is tool "x", key "access", exactly as the name
// JP_CFG_CONVERSATION_TOOLS_X_ACCESS would be: a tool map key is always
// the first segment (assign_to_entry, trim_prefix_any).
type kvWalk struct {
	delim string
	out   []envAssign
}

// cut is KvKey::trim_prefix.
func (w *kvWalk) cut(path, seg string) (string, bool) {
	if path == seg {
		return "", true
	}
	return strings.CutPrefix(path, seg+w.delim)
}

// spread is try_merge_object: each member of a JSON object assigned at
// level with its name as the key path.
func (w *kvWalk) spread(nv nativeValue, what string, level func(string, nativeValue) error) error {
	if nv.json == nil || nv.json.Kind != tomlpos.Table {
		return objectExpected(nv, what)
	}
	for _, k := range nv.json.Keys {
		if err := level(k, nv.child(nv.json.Fields[k])); err != nil {
			return err
		}
	}
	return nil
}

// PartialAppConfig::assign.
func (w *kvWalk) root(path string, nv nativeValue) error {
	if path == "" {
		return w.spread(nv, "the config root", w.root)
	}
	if rest, ok := w.cut(path, "config_load_paths"); ok {
		if rest != "" {
			return unsupportedIndex(nv, "config_load_paths", rest)
		}
		arr, err := nativeList(nv, "", "config_load_paths")
		if err != nil {
			return err
		}
		for _, it := range arr.Items {
			if it.Kind != tomlpos.String {
				// JP's parser for config_load_paths takes strings only
				// (type_error), in a variable and in --cfg alike.
				c := nv.child(it)
				return jpKeyError(c, fmt.Sprintf("config_load_paths takes strings, not %s", valueKind(c)), "write each path as a JSON string.")
			}
		}
		w.out = append(w.out, envAssign{key: []string{"config_load_paths"}, v: arr, list: true, merge: nv.merge})
		return nil
	}
	if rest, ok := w.cut(path, "conversation"); ok {
		return w.conversation(rest, nv)
	}
	// JP's other keys (assistant, style, ...) are not jp-policy's, but a
	// key JP does not have stops JP: refuse it too (jpkeys.go).
	return w.checkKV(jpRoot(), path, path, nv)
}

// PartialConversationConfig::assign.
func (w *kvWalk) conversation(path string, nv nativeValue) error {
	if path == "" {
		return w.spread(nv, "conversation", w.conversation)
	}
	if rest, ok := w.cut(path, "tools"); ok {
		return w.tools(rest, nv)
	}
	return w.checkKV(jpChild(jpRoot(), "conversation"), path, "conversation"+w.delim+path, nv)
}

// PartialToolsConfig::assign: "*" is the defaults table, anything else
// names a tool by its first segment.
func (w *kvWalk) tools(path string, nv nativeValue) error {
	if path == "" {
		return w.spread(nv, "conversation.tools", w.tools)
	}
	if rest, ok := w.cut(path, "*"); ok {
		return w.tool("*", rest, nv)
	}
	name, rest, _ := strings.Cut(path, w.delim)
	return w.tool(name, rest, nv)
}

func (w *kvWalk) isNull(nv nativeValue) bool {
	return nv.json != nil && nv.json.Kind == tomlpos.Null
}

// null is a JSON null for a scalar key, which JP's try_some_* reads as
// None. In a variable that changes nothing (the env layer is merged over
// the files, and None keeps what they set); in --cfg it removes the key
// from the config built so far, which then falls back to its default
// (enable: on), and jp-policy does not model removing a key.
func (w *kvWalk) null(nv nativeValue, what string) error {
	if w.delim == "_" {
		return nil
	}
	return diag.List{{Pos: nv.pos(), Severity: diag.Error, Rule: RuleSchema,
		Message: fmt.Sprintf("%s: JP reads null as removing the key from the config built so far (it falls back to its default; a disabled tool is enabled again); jp-policy does not model removing a key", what),
		Help:    "assign the value you mean instead of null"}}
}

func unknownKey(nv nativeValue, tool, path string) error {
	return diag.List{{Pos: nv.pos(), Severity: diag.Error, Rule: RuleSchema,
		Message: fmt.Sprintf("conversation.tools.%s: JP has no key %q here and refuses the assignment", tool, path),
		Help:    "a tool's name is the first segment after TOOLS, so a tool whose name has an underscore cannot be named in a variable; use a config file or --cfg conversation.tools.<tool>.<key>=..."}}
}

func unsupportedIndex(nv nativeValue, what, rest string) error {
	return diag.List{{Pos: nv.pos(), Severity: diag.Error, Rule: RuleSchema,
		Message: fmt.Sprintf("%s: JP reads %q as a part of the list built so far (an index, or a key of one element); jp-policy does not apply such assignments", what, rest),
		Help:    "assign the whole list instead: KEY=VALUE replaces it, KEY+=VALUE (a variable: a leading '+') appends"}}
}

// tool is PartialToolConfig::assign (PartialToolsDefaultsConfig::assign
// for "*", which has fewer keys).
func (w *kvWalk) tool(tool, path string, nv nativeValue) error {
	at := "conversation.tools." + tool
	switch path {
	case "":
		if tool == "*" {
			return unknownKey(nv, tool, path) // the defaults have no "" arm
		}
		return w.spread(nv, at, func(k string, c nativeValue) error { return w.tool(tool, k, c) })
	case "source", "run", "command", "enable":
		if tool == "*" && (path == "source" || path == "command") {
			return unknownKey(nv, tool, path)
		}
		if w.isNull(nv) {
			return w.null(nv, at+"."+path)
		}
		if nv.json == nil && nv.str == "" && path != "command" {
			// RunMode, ToolSource and PartialEnableConfig parse "" as an
			// error (FromStr); a command may be empty.
			return jpKeyError(nv, fmt.Sprintf("%s.%s is empty, which JP cannot parse", at, path), "give a value.")
		}
		n := nv.json
		if n == nil {
			n, _ = envValue("", nv.str, []string{path})
			n.Pos = nv.pos()
		}
		w.out = append(w.out, envAssign{tool: tool, key: []string{path}, v: n})
		return nil
	case "format", "result":
		return w.checkLeaf(leafFromStr, at+w.delim+path, nv) // JP's keys jp-policy does not model
	case "cancellation_response":
		return w.checkLeaf(leafString, at+w.delim+path, nv)
	case "summary", "description", "examples", "parameters", "questions":
		if tool == "*" {
			return unknownKey(nv, tool, path)
		}
		if path == "parameters" || path == "questions" {
			return w.checkLeaf(leafObject, at+w.delim+path, nv)
		}
		return w.checkLeaf(leafString, at+w.delim+path, nv)
	}
	if sub, ok := w.cut(path, "enable"); ok {
		if sub != "state" && sub != "allow_toggle" {
			return unknownKey(nv, tool, path)
		}
		if w.isNull(nv) {
			return w.null(nv, at+".enable."+sub)
		}
		// One field of the { state, allow_toggle } table (EnableConfig).
		n := nv.json
		if n == nil {
			n = &tomlpos.Node{Kind: tomlpos.String, Pos: nv.pos(), Str: nv.str}
			if sub == "state" && (nv.str == "true" || nv.str == "false") {
				n = &tomlpos.Node{Kind: tomlpos.Bool, Pos: nv.pos(), Bool: nv.str == "true"}
			}
		}
		w.out = append(w.out, envAssign{tool: tool, key: []string{"enable", sub}, v: n})
		return nil
	}
	if _, ok := w.cut(path, "style"); ok {
		return w.checkKV(jpToolStyle(), path, at+w.delim+path, nv)
	}
	if tool != "*" {
		if sub, ok := w.cut(path, "command"); ok {
			// JP assigns program, args or shell into the command built so
			// far, or refuses it when that is a string.
			return diag.List{{Pos: nv.pos(), Severity: diag.Error, Rule: RuleSchema,
				Message: fmt.Sprintf("%s.command: JP assigns %q into the command built so far (or refuses it when that is a string); jp-policy does not apply a part of a command", at, sub),
				Help:    "assign the whole command: conversation.tools.<tool>.command (a string or a { program, args, shell } object)"}}
		}
		if _, ok := w.cut(path, "options"); ok {
			return nil
		}
		if rest, ok := w.cut(path, "access"); ok {
			return w.access(tool, rest, nv)
		}
	}
	return unknownKey(nv, tool, path)
}

// access is PartialAccessConfig::assign, which in JP knows only fs; the
// other lists and commands are jp-policy's (RFD 076).
func (w *kvWalk) access(tool, path string, nv nativeValue) error {
	at := "conversation.tools." + tool + ".access"
	if path == "" {
		return w.spread(nv, at, func(k string, c nativeValue) error { return w.access(tool, k, c) })
	}
	for _, kind := range [...]string{"fs", "net", "env", "config", "sensitive_paths"} {
		rest, ok := w.cut(path, kind)
		if !ok {
			continue
		}
		if rest != "" {
			return unsupportedIndex(nv, at+"."+kind, rest)
		}
		primary, _ := nativeListKey(kind)
		items, err := nativeList(nv, primary, at+"."+kind)
		if err != nil {
			return err
		}
		w.out = append(w.out, envAssign{tool: tool, key: []string{"access", kind}, v: items, list: true, merge: nv.merge})
		return nil
	}
	if prog, ok := w.cut(path, "commands"); ok {
		switch {
		case prog == "" && nv.json != nil && nv.json.Kind == tomlpos.Table:
			for _, p := range nv.json.Keys {
				w.out = append(w.out, envAssign{tool: tool, key: []string{"access", "commands", p}, v: nv.json.Fields[p]})
			}
			return nil
		case prog != "" && nv.json != nil:
			w.out = append(w.out, envAssign{tool: tool, key: []string{"access", "commands", prog}, v: nv.json})
			return nil
		}
	}
	w.out = append(w.out, envAssign{tool: tool, key: append([]string{"access"}, strings.Split(path, w.delim)...)})
	return nil
}

func objectExpected(nv nativeValue, what string) error {
	return fatal(nv.pos(), RuleSchema, "%s: JP expects a JSON object here (a value starting with ':')", what)
}

// nativeList turns a list value into a plain array: a JSON array as is
// (a string element naming the rule's primary key), or a string split on
// commas like JP's try_parse_vec.
func nativeList(nv nativeValue, primary, what string) (*tomlpos.Node, error) {
	wrap := func(s *tomlpos.Node) *tomlpos.Node {
		if primary == "" {
			return s
		}
		t := tomlpos.NewTable(s.Pos)
		s.KeyPos = s.Pos
		t.Set(primary, s)
		return t
	}
	arr := &tomlpos.Node{Kind: tomlpos.Array, Pos: nv.pos(), KeyPos: nv.pos()}
	switch {
	case nv.json != nil && nv.json.Kind == tomlpos.Array:
		for _, it := range nv.json.Items {
			if it.Kind == tomlpos.String {
				it = wrap(it)
			}
			arr.Items = append(arr.Items, it)
		}
	case nv.json != nil && nv.json.Kind != tomlpos.String:
		return nil, fatal(nv.pos(), RuleSchema, "%s: JP expects a string or an array here, not a JSON %s (the { strategy, value } form is for files)", what, nv.json.Kind)
	default:
		s, col := nv.str, nv.col
		if nv.json != nil {
			s, col = nv.json.Str, nv.json.Pos.Col+1
		}
		off := 0
		for piece := range strings.SplitSeq(s, ",") {
			trimmed := strings.TrimSpace(piece)
			lead := len(piece) - len(strings.TrimLeft(piece, " \t\n\r"))
			if trimmed != "" {
				arr.Items = append(arr.Items, wrap(&tomlpos.Node{Kind: tomlpos.String, Pos: diag.Position{File: nv.file, Line: 1, Col: col + off + lead}, Str: trimmed}))
			}
			off += len(piece) + 1
		}
	}
	return arr, nil
}

// nativePrefix strips JP's value modifiers and returns where the value
// proper starts (1-based column).
func nativePrefix(v string) (raw, merge bool, col int, rest string) {
	col = 1
	for len(v) > 0 {
		switch {
		case strings.HasPrefix(v, `\:`) || strings.HasPrefix(v, `\+`):
			return raw, merge, col + 1, v[1:]
		case v[0] == ':' && !raw:
			raw = true
		case v[0] == '+' && !merge:
			merge = true
		default:
			return raw, merge, col, v
		}
		v = v[1:]
		col++
	}
	return raw, merge, col, v
}

// envJSONValue parses a JSON value from a variable, with positions counted
// inside the variable's value.
func envJSONValue(file, value string, col int) (*tomlpos.Node, error) {
	const open = `{"v":`
	root, err := tomlpos.ParseJSON(file, []byte(open+value+"}"))
	shift := func(p *diag.Position) {
		if p.Line == 1 {
			p.Col = max(1, p.Col-len(open)+col-1)
		}
	}
	if err != nil {
		var list diag.List
		if se, ok := err.(*tomlpos.SyntaxError); ok {
			p := se.Pos
			shift(&p)
			list = diag.List{{Pos: p, Severity: diag.Error, Rule: RuleSyntax, Message: se.Message}}
			return nil, list
		}
		return nil, err
	}
	v := root.Get("v")
	if v == nil || len(root.Keys) != 1 {
		return nil, fatal(diag.Position{File: file, Line: 1, Col: col}, RuleSyntax, "the value must be a single JSON value")
	}
	v.Walk(func(n *tomlpos.Node) {
		shift(&n.Pos)
		if !n.KeyPos.IsZero() {
			shift(&n.KeyPos)
		}
	})
	return v, nil
}
