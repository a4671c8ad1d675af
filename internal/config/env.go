package config

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/execplan"
	"github.com/jp-policy/jp-policy/internal/tomlpos"
)

// EnvPrefix starts every variable of the env layer.
const EnvPrefix = execplan.EnvConfigPrefix

// The env layer reads JP's own single-underscore form (env_native.go) and
// variables of the form
//
//	JP_CFG_CONVERSATION__TOOLS__<TOOL>__<KEY>[__<SUBKEY>...]=<value>
//
// where `__` separates key segments and each segment is lower-cased (tool
// names are JP's snake_case). Supported keys, under conversation.tools.<tool>:
//
//	SOURCE, RUN, COMMAND          the value is the string as is
//	ENABLE                        true/false become booleans, else a string
//	ACCESS__FS, ACCESS__NET, ACCESS__ENV, ACCESS__CONFIG,
//	ACCESS__SENSITIVE_PATHS       a TOML value: an array of inline tables,
//	                              or the { strategy, value, ... } table
//	ACCESS__COMMANDS__<PROGRAM>   a TOML inline table { args = ..., envs = ... }
//
// Other JP_CFG_ variables are not jp-policy's business and are ignored;
// an unsupported key under access is reported as a warning.

func envPos(name string, col int) diag.Position {
	return diag.Position{File: "env:" + name, Line: 1, Col: col}
}

func (ld *loader) envLayer(environ func() []string, getenv func(string) string) error {
	var names []string
	var list []string
	if environ != nil {
		list = environ()
	} else {
		list = os.Environ()
	}
	for _, kv := range list {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, EnvPrefix) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	names = compactStrings(names)
	if len(names) > 0 && environ == nil {
		if dups := envDuplicates(processEnvBlock(), EnvPrefix); len(dups) > 0 {
			return diag.List{{Pos: envPos(dups[0], 1), Severity: diag.Error, Rule: RuleSchema,
				Message: dups[0] + " is set more than once in the environment: JP applies every entry in turn (the last wins), jp-policy reads only the first",
				Help:    "set the variable once (the program that starts JP passes it twice)"}}
		}
	}
	root := tomlpos.NewTable(diag.Position{File: "env", Line: 1, Col: 1})
	used := false
	var seen []assigned
	for _, name := range names {
		value := getenv(name)
		if execplan.IsEnvConfigInput(name) {
			// A staleness input even when nothing below applies it (set
			// to "" included), so exec can tell a variable set since the
			// compile from one the compile saw
			// (execplan.IsEnvConfigInput).
			ld.l.Env[name] = value
		}
		if value == "" && strings.Contains(strings.TrimPrefix(name, EnvPrefix), "__") {
			continue // jp-policy's own form: an empty value assigns nothing
		}
		// JP's form: an empty value is assigned like any other
		// (from_envs skips nothing): an empty list, an empty string, or
		// JP's refusal (an empty run, source or enable; an unknown key).
		if !utf8.ValidString(name) || !utf8.ValidString(value) {
			// JP's from_envs skips a variable whose name or value is not
			// UTF-8 (into_string().ok()); so does jp-policy, after
			// recording it above so that exec sees it unchanged.
			continue
		}
		entries, err := envEntries(name, value)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.v == nil {
				if e.key[0] != "access" {
					continue // JP keys jp-policy does not model, such as style
				}
				ld.emit(diag.Diagnostic{Pos: envPos(name, 1), Severity: diag.Warning,
					Message: fmt.Sprintf("unsupported key %q for a JP_CFG_ variable; ignored", strings.Join(e.key, ".")),
					Help:    "jp-policy reads access, source and enable from JP_CFG_ variables; put other keys in a config file, or unset the variable"})
				continue
			}
			if seen, err = checkOverlap(seen, name, e, envPos(name, 1)); err != nil {
				return err
			}
			ld.l.Env[name] = value
			if e.tool == "" {
				// config_load_paths: JP's env layer appends to the files'.
				for _, it := range e.v.Items {
					if it.Kind != tomlpos.String {
						return fatal(it.Pos, RuleSchema, "config_load_paths: expected a string, but got %s", it.Kind)
					}
					ld.loadPaths = append(ld.loadPaths, it.Str)
				}
				continue
			}
			envSet(root, name, append([]string{"conversation", "tools", e.tool}, e.key...), e)
			used = true
		}
	}
	if !used {
		return nil
	}
	ld.l.Layers = append(ld.l.Layers, Layer{Kind: LayerEnv, Path: "env"})
	ld.emitValidation(root)
	ld.m.apply(root)
	return nil
}

// envSet puts one value into the env layer's tree at full. A list
// value with merge appends to the array an earlier variable put there;
// anything else replaces what was there.
func envSet(root *tomlpos.Node, name string, full []string, e envAssign) {
	t := root
	for _, seg := range full[:len(full)-1] {
		next := t.Get(seg)
		if next != nil && next.Kind != tomlpos.Table {
			next = nil // only reachable through a conflicting variable; the later one wins
		}
		if next == nil {
			next = tomlpos.NewTable(envPos(name, 1))
			next.KeyPos = envPos(name, 1)
			t.Set(seg, next)
		}
		t = next
	}
	last := full[len(full)-1]
	v := e.v
	if prev := t.Get(last); e.list && e.merge && prev != nil && prev.Kind == tomlpos.Array {
		merged := *prev
		merged.Items = append(slices.Clone(prev.Items), v.Items...)
		v = &merged
	}
	if v.KeyPos.IsZero() {
		v.KeyPos = envPos(name, 1)
	}
	t.Set(last, v)
}

// envEntries reads one variable in either supported form: nothing when
// the variable is not under conversation.tools, an entry with a nil value
// for a key jp-policy does not support.
func envEntries(name, value string) ([]envAssign, error) {
	rest := strings.TrimPrefix(name, EnvPrefix)
	if strings.Contains(rest, "__") {
		segs := strings.Split(rest, "__")
		for i := range segs {
			segs[i] = asciiLower(segs[i])
		}
		if len(segs) < 4 || segs[0] != "conversation" || segs[1] != "tools" || segs[2] == "" {
			return nil, nil
		}
		v, err := envValue(name, value, segs[3:])
		if err != nil {
			return nil, err
		}
		if v != nil {
			v.KeyPos = envPos(name, 1)
		}
		return []envAssign{{tool: segs[2], key: segs[3:], v: v}}, nil
	}
	return nativeEntries(name, value)
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// envValue turns a variable's value into a node, or nil when the key is
// not one the env layer supports.
func envValue(name, value string, key []string) (*tomlpos.Node, error) {
	pos := envPos(name, 1)
	switch {
	case len(key) == 1 && (key[0] == "source" || key[0] == "run" || key[0] == "command"):
		return &tomlpos.Node{Kind: tomlpos.String, Pos: pos, Str: value}, nil
	case len(key) == 1 && key[0] == "enable":
		if value == "true" || value == "false" {
			return &tomlpos.Node{Kind: tomlpos.Bool, Pos: pos, Bool: value == "true"}, nil
		}
		return &tomlpos.Node{Kind: tomlpos.String, Pos: pos, Str: value}, nil
	case len(key) == 2 && key[0] == "access" && (key[1] == "fs" || key[1] == "net" || key[1] == "env" || key[1] == "config" || key[1] == "sensitive_paths"),
		len(key) == 3 && key[0] == "access" && key[1] == "commands" && key[2] != "":
		return envTOML(name, value)
	}
	return nil, nil
}

// envTOML parses a value as the right-hand side of a TOML key-value, with
// positions counted inside the variable's value.
func envTOML(name, value string) (*tomlpos.Node, error) {
	const prefix = "v = "
	file := "env:" + name
	root, err := tomlpos.ParseTOML(file, []byte(prefix+value))
	if err != nil {
		if se, ok := errors.AsType[*tomlpos.SyntaxError](err); ok {
			p := se.Pos
			if p.Line == 1 {
				p.Col = max(1, p.Col-len(prefix))
			}
			return nil, fatal(p, RuleSyntax, "%s", se.Message)
		}
		return nil, err
	}
	v := root.Get("v")
	if v == nil || len(root.Keys) != 1 {
		return nil, fatal(envPos(name, 1), RuleSyntax, "the value must be a single TOML value")
	}
	v.Walk(func(n *tomlpos.Node) {
		for _, p := range []*diag.Position{&n.Pos, &n.KeyPos} {
			if p.Line == 1 && p.Col > len(prefix) {
				p.Col -= len(prefix)
			}
		}
	})
	return v, nil
}

// assigned is one path the env layer (or one --cfg argument) assigned,
// and by which variable.
type assigned struct {
	by    string
	path  []string
	list  bool
	pos   diag.Position
	merge bool
}

// checkOverlap refuses two assignments to the same key, or to a key and
// a part of it (enable and enable.state), where the result depends on
// their order: JP applies variables in the order of its environment
// (std::env::vars_os), which jp-policy cannot see and which no compiled
// artifact records (only each value's hash), and the members of one JSON
// object in document order, which a name and an object spelling of the
// same key hide. Two '+' lists only append, in either order.
func checkOverlap(seen []assigned, by string, e envAssign, pos diag.Position) ([]assigned, error) {
	path := append([]string{e.tool}, e.key...)
	for _, s := range seen {
		n := min(len(s.path), len(path))
		if !slices.Equal(s.path[:n], path[:n]) || (s.list && e.list && s.merge && e.merge) {
			continue
		}
		what := strings.Join(path[:n], ".")
		if e.tool != "" {
			what = "conversation.tools." + what
		}
		msg := fmt.Sprintf("%s and %s both assign %s; JP applies variables in the order of its environment, which jp-policy cannot see (and a compiled artifact does not record), so either may win", s.by, by, what)
		if s.by == by {
			msg = fmt.Sprintf("%s assigns %s twice, in two spellings; jp-policy does not apply overlapping parts of one value", by, what)
		}
		return seen, diag.List{{Pos: pos, Severity: diag.Error, Rule: RuleSchema,
			Message: msg,
			Help:    "set the key once (unset one of the variables, or write it once), or give both lists a leading '+' so that each appends"}}
	}
	return append(seen, assigned{by: by, path: path, list: e.list, merge: e.merge, pos: pos}), nil
}
