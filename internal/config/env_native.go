package config

import (
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
// The key is lower-cased and split on single underscores. Like JP, the
// tool name is the first segment after TOOLS, so the field form only
// reaches tools whose names have no underscore (the object forms and the
// `__` form reach any). FIELD is RUN, SOURCE, ENABLE, COMMAND, ACCESS,
// ACCESS_FS, ACCESS_NET, ACCESS_ENV, ACCESS_CONFIG, ACCESS_SENSITIVE_PATHS
// or ACCESS_COMMANDS_<PROGRAM>. A leading ':' makes the value JSON; `\:`
// and `\+` escape the modifiers.
//
// JP assigns every variable into a fresh, empty env layer and then merges
// that layer over the files like any other: a list value therefore
// appends to the files' rules (a plain array), and '+' only decides
// whether it appends to or replaces what an earlier variable put in the
// same list. A plain string for a list is split on commas, each piece one
// rule naming its path (or host, or name).

// envAssign is one value for the env layer, under conversation.tools.<tool>.
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
	return assignKV("env:"+name, strings.ToLower(strings.TrimPrefix(name, EnvPrefix)), "_", raw, merge, col, val)
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
	conv, tools, tool := "conversation", "conversation"+delim+"tools", "conversation"+delim+"tools"+delim
	switch {
	case key == "":
		// The root object of --cfg '{...}': only conversation.tools is
		// jp-policy's business.
		if nv.json == nil || nv.json.Kind != tomlpos.Table {
			return nil, nil
		}
		if c := nv.json.Get("conversation"); c != nil && c.Kind == tomlpos.Table {
			if t := c.Get("tools"); t != nil {
				return nativeTools(nv.child(t))
			}
		}
		return nil, nil
	case key == conv:
		if nv.json == nil || nv.json.Kind != tomlpos.Table {
			return nil, nil
		}
		t := nv.json.Get("tools")
		if t == nil {
			return nil, nil
		}
		return nativeTools(nv.child(t))
	case key == tools:
		return nativeTools(nv)
	case !strings.HasPrefix(key, tool):
		return nil, nil
	}
	name, field, _ := strings.Cut(strings.TrimPrefix(key, tool), delim)
	if name == "" {
		return nil, nil
	}
	var out []envAssign
	err := nativeTool(&out, name, strings.ReplaceAll(field, delim, "_"), nv)
	return out, err
}

// nativeTools assigns a JSON object of tools, each member one tool.
func nativeTools(nv nativeValue) ([]envAssign, error) {
	if nv.json == nil || nv.json.Kind != tomlpos.Table {
		return nil, objectExpected(nv, "conversation.tools")
	}
	var out []envAssign
	for _, k := range nv.json.Keys {
		if err := nativeTool(&out, k, "", nv.child(nv.json.Fields[k])); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func objectExpected(nv nativeValue, what string) error {
	return fatal(nv.pos(), RuleSchema, "%s: JP expects a JSON object here (a value starting with ':')", what)
}

// nativeTool assigns field (underscore-joined, "" for the whole tool) of
// one tool.
func nativeTool(out *[]envAssign, tool, field string, nv nativeValue) error {
	switch field {
	case "":
		if nv.json == nil || nv.json.Kind != tomlpos.Table {
			return objectExpected(nv, "conversation.tools."+tool)
		}
		for _, k := range nv.json.Keys {
			if err := nativeTool(out, tool, k, nv.child(nv.json.Fields[k])); err != nil {
				return err
			}
		}
		return nil
	case "run", "source", "command", "enable":
		var n *tomlpos.Node
		if nv.json != nil {
			n = nv.json
		} else {
			n, _ = envValue("", nv.str, []string{field})
			n.Pos = nv.pos()
		}
		*out = append(*out, envAssign{tool: tool, key: []string{field}, v: n})
		return nil
	case "access":
		if nv.json == nil || nv.json.Kind != tomlpos.Table {
			return objectExpected(nv, "conversation.tools."+tool+".access")
		}
		for _, k := range nv.json.Keys {
			if err := nativeAccess(out, tool, k, nv.child(nv.json.Fields[k])); err != nil {
				return err
			}
		}
		return nil
	}
	if rest, ok := strings.CutPrefix(field, "access_"); ok {
		return nativeAccess(out, tool, rest, nv)
	}
	if sub, ok := strings.CutPrefix(field, "enable_"); ok && (sub == "state" || sub == "allow_toggle") {
		// One field of the { state, allow_toggle } table (EnableConfig).
		n := nv.json
		if n == nil {
			n = &tomlpos.Node{Kind: tomlpos.String, Pos: nv.pos(), Str: nv.str}
			if sub == "state" && (nv.str == "true" || nv.str == "false") {
				n = &tomlpos.Node{Kind: tomlpos.Bool, Pos: nv.pos(), Bool: nv.str == "true"}
			}
		}
		*out = append(*out, envAssign{tool: tool, key: []string{"enable", sub}, v: n})
		return nil
	}
	// JP's other tool keys (style, summary, ...) are not jp-policy's.
	return nil
}

// nativeAccess assigns one key of a tool's access table.
func nativeAccess(out *[]envAssign, tool, key string, nv nativeValue) error {
	if primary, ok := nativeListKey(key); ok {
		items, err := nativeList(nv, primary, "conversation.tools."+tool+".access."+key)
		if err != nil {
			return err
		}
		*out = append(*out, envAssign{tool: tool, key: []string{"access", key}, v: items, list: true, merge: nv.merge})
		return nil
	}
	prog, isProg := strings.CutPrefix(key, "commands_")
	switch {
	case key == "commands" && nv.json != nil && nv.json.Kind == tomlpos.Table:
		for _, p := range nv.json.Keys {
			*out = append(*out, envAssign{tool: tool, key: []string{"access", "commands", p}, v: nv.json.Fields[p]})
		}
		return nil
	case isProg && prog != "" && nv.json != nil:
		*out = append(*out, envAssign{tool: tool, key: []string{"access", "commands", prog}, v: nv.json})
		return nil
	}
	*out = append(*out, envAssign{tool: tool, key: append([]string{"access"}, strings.Split(key, "_")...)})
	return nil
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
