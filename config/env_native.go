package config

import (
	"strings"

	"github.com/jp-policy/jp-policy/diag"
	"github.com/jp-policy/jp-policy/tomlpos"
)

// JP's own form of the variables, as its KvAssignment reads them:
//
//	JP_CFG_CONVERSATION_TOOLS_<TOOL>_<FIELD>=[+][:]<value>
//
// The key is lower-cased and split on single underscores. Like JP, the
// tool name is the first segment after TOOLS, so this form only reaches
// tools whose names have no underscore (use the `__` form for the others).
// FIELD is RUN, SOURCE, ENABLE, COMMAND, ACCESS_FS, ACCESS_NET,
// ACCESS_ENV, ACCESS_CONFIG, ACCESS_SENSITIVE_PATHS or
// ACCESS_COMMANDS_<PROGRAM>. A leading ':' makes the value JSON; a leading
// '+' merges a list (append) instead of setting it (replace); `\:` and
// `\+` escape them. A plain string for a list is one rule naming its path
// (or host, or name).

var nativeListKey = map[string]string{"fs": "path", "net": "host", "env": "name", "config": "path", "sensitive_paths": ""}

func nativeEntry(name, value string) (string, []string, *tomlpos.Node, error) {
	rest := strings.ToLower(strings.TrimPrefix(name, EnvPrefix))
	rest, ok := strings.CutPrefix(rest, "conversation_tools_")
	if !ok {
		return "", nil, nil, nil
	}
	tool, field, _ := strings.Cut(rest, "_")
	if tool == "" {
		return "", nil, nil, nil
	}
	raw, merge, col, val := nativePrefix(value)
	switch field {
	case "run", "source", "command", "enable":
		key := []string{field}
		if raw {
			n, err := envJSONValue(name, val, col)
			return tool, key, n, err
		}
		n, _ := envValue(name, val, key)
		return tool, key, n, nil
	}
	if prog, ok := strings.CutPrefix(field, "access_commands_"); ok && prog != "" {
		key := []string{"access", "commands", prog}
		if !raw {
			return tool, key, nil, nil
		}
		n, err := envJSONValue(name, val, col)
		return tool, key, n, err
	}
	list, ok := strings.CutPrefix(field, "access_")
	primary, known := nativeListKey[list]
	if !ok || !known {
		return tool, strings.Split(field, "_"), nil, nil
	}
	key := []string{"access", list}
	var items *tomlpos.Node
	pos := envPos(name, col)
	if raw {
		n, err := envJSONValue(name, val, col)
		if err != nil {
			return tool, key, nil, err
		}
		items = n
		if n.Kind != tomlpos.Array {
			items = &tomlpos.Node{Kind: tomlpos.Array, Pos: n.Pos, Items: []*tomlpos.Node{n}}
		}
	} else {
		item := &tomlpos.Node{Kind: tomlpos.String, Pos: pos, Str: val}
		if primary != "" {
			t := tomlpos.NewTable(pos)
			item.KeyPos = pos
			t.Set(primary, item)
			item = t
		}
		items = &tomlpos.Node{Kind: tomlpos.Array, Pos: pos, Items: []*tomlpos.Node{item}}
	}
	// JP sets (replaces) a list unless the value starts with '+'.
	strategy := strategyReplace
	if merge {
		strategy = strategyAppend
	}
	t := tomlpos.NewTable(pos)
	t.Set("strategy", &tomlpos.Node{Kind: tomlpos.String, Pos: pos, KeyPos: pos, Str: strategy})
	items.KeyPos = pos
	t.Set("value", items)
	return tool, key, t, nil
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
func envJSONValue(name, value string, col int) (*tomlpos.Node, error) {
	const open = `{"v":`
	root, err := tomlpos.ParseJSON("env:"+name, []byte(open+value+"}"))
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
		return nil, fatal(envPos(name, col), RuleSyntax, "the value must be a single JSON value")
	}
	v.Walk(func(n *tomlpos.Node) {
		shift(&n.Pos)
		if !n.KeyPos.IsZero() {
			shift(&n.KeyPos)
		}
	})
	return v, nil
}
