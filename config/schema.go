package config

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/jp-policy/jp-policy/diag"
	"github.com/jp-policy/jp-policy/tomlpos"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

//go:embed schema.json
var schemaJSON []byte

const schemaURL = "https://github.com/jp-policy/jp-policy/schema/jp-config.json"

// Rule IDs of the loader's diagnostics; lint documents them.
const (
	RuleSyntax     = "JP001" // TOML/JSON syntax
	RuleSchema     = "JP002" // schema violation
	RuleUnknownKey = "JP003" // unknown key inside access or a rule
	RuleMissingExt = "JP004" // missing extends target (warning)
	RuleCycle      = "JP005" // extends cycle
	RuleExtension  = "JP006" // unsupported file extension
)

// Schema returns the embedded JSON Schema (draft 2020-12) of the config
// jp-policy owns. It is permissive at the top so editors can use it on
// whole JP config files.
func Schema() []byte { return bytes.Clone(schemaJSON) }

var (
	compileOnce sync.Once
	compiled    *jsonschema.Schema
	compileErr  error
	// owned lists the keys the schema constrains at the top level, in a
	// tool and in the '*' defaults; everything else is accepted as is, so
	// validation skips it (JP's system prompts and tool parameters are
	// most of a real config).
	owned struct{ top, tool, defaults map[string]bool }
	fast  *fastChecker
)

func propertyNames(m map[string]any, path ...string) map[string]bool {
	cur := m
	for _, p := range path {
		next, _ := cur[p].(map[string]any)
		cur = next
	}
	props, _ := cur["properties"].(map[string]any)
	out := map[string]bool{}
	for k := range props {
		out[k] = true
	}
	return out
}

func schema() (*jsonschema.Schema, error) {
	compileOnce.Do(func() {
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft2020
		if err := c.AddResource(schemaURL, bytes.NewReader(schemaJSON)); err != nil {
			compileErr = err
			return
		}
		compiled, compileErr = c.Compile(schemaURL)
		var raw map[string]any
		if err := json.Unmarshal(schemaJSON, &raw); err != nil && compileErr == nil {
			compileErr = err
		}
		fast = &fastChecker{root: raw}
		owned.top = propertyNames(raw)
		owned.tool = propertyNames(raw, "$defs", "tool")
		owned.defaults = propertyNames(raw, "$defs", "toolDefaults")
	})
	return compiled, compileErr
}

// validate checks one document tree against the schema and maps every
// failure back to the position of the offending key or value.
func validate(root *tomlpos.Node) (out diag.List) {
	s, err := schema()
	if err != nil {
		// The schema is embedded and tested; failing closed keeps a
		// broken build from passing every config as valid.
		return diag.List{{Pos: root.Pos, Severity: diag.Error, Rule: RuleSchema, Message: "internal error: schema does not compile: " + err.Error()}}
	}
	defer func() {
		if r := recover(); r != nil {
			out = diag.List{{Pos: root.Pos, Severity: diag.Error, Rule: RuleSchema, Message: fmt.Sprintf("internal error: schema validation failed: %v", r)}}
		}
	}()
	tree := ownedTree(root)
	if fast.valid(fast.root, tree) {
		return nil
	}
	err = s.Validate(tree.Value())
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	seen := map[string]bool{}
	for _, leaf := range leaves(ve, nil) {
		for _, d := range mapError(root, leaf) {
			k := d.Pos.String() + d.Message
			if !seen[k] {
				seen[k] = true
				out = append(out, d)
			}
		}
	}
	sortDiags(out)
	return out
}

// ownedTree is the document restricted to what the schema constrains, as a
// tree sharing the original nodes: the same paths, so errors still map
// back to positions.
func ownedTree(root *tomlpos.Node) *tomlpos.Node {
	if root.Kind != tomlpos.Table {
		return root
	}
	top := tomlpos.NewTable(root.Pos)
	for _, k := range root.Keys {
		if owned.top[k] && k != "conversation" {
			top.Set(k, root.Fields[k])
		}
	}
	conv := root.Get("conversation")
	if conv == nil {
		return top
	}
	if conv.Kind != tomlpos.Table {
		top.Set("conversation", conv)
		return top
	}
	cm := tomlpos.NewTable(conv.Pos)
	top.Set("conversation", cm)
	tools := conv.Get("tools")
	if tools == nil {
		return top
	}
	if tools.Kind != tomlpos.Table {
		cm.Set("tools", tools)
		return top
	}
	tm := tomlpos.NewTable(tools.Pos)
	cm.Set("tools", tm)
	for _, name := range tools.Keys {
		t := tools.Fields[name]
		keep := owned.tool
		if name == "*" {
			keep = owned.defaults
		}
		if t.Kind != tomlpos.Table {
			tm.Set(name, t)
			continue
		}
		m := tomlpos.NewTable(t.Pos)
		for _, k := range t.Keys {
			if keep[k] {
				m.Set(k, t.Fields[k])
			}
		}
		tm.Set(name, m)
	}
	return top
}

func leaves(ve *jsonschema.ValidationError, acc []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(ve.Causes) == 0 {
		return append(acc, ve)
	}
	for _, c := range ve.Causes {
		acc = leaves(c, acc)
	}
	return acc
}

func splitPointer(p string) []string {
	if p == "" || p == "/" {
		return nil
	}
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, s := range parts {
		// The validator URL-escapes instance locations ('*' is %2A).
		if u, err := url.PathUnescape(s); err == nil {
			s = u
		}
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return parts
}

var quoted = regexp.MustCompile(`'((?:[^'\\]|\\.)*)'`)

func mapError(root *tomlpos.Node, ve *jsonschema.ValidationError) diag.List {
	path := splitPointer(ve.InstanceLocation)
	node, _ := root.Lookup(path)
	kw := ve.KeywordLocation
	if i := strings.LastIndex(kw, "/"); i >= 0 {
		kw = kw[i+1:]
	}
	switch kw {
	case "additionalProperties":
		var out diag.List
		what, known := knownKeys(path)
		for _, m := range quoted.FindAllStringSubmatch(ve.Message, -1) {
			key := m[1]
			pos := node.Pos
			if f := node.Get(key); f != nil && !f.KeyPos.IsZero() {
				pos = f.KeyPos
			}
			d := diag.Diagnostic{Pos: pos, Severity: diag.Error, Rule: RuleUnknownKey,
				Message: fmt.Sprintf("unknown key %q in %s", key, what)}
			if s := suggest(key, known); s != "" {
				d.Help = fmt.Sprintf("did you mean %q?", s)
			} else if len(known) > 0 {
				d.Help = "known keys: " + strings.Join(known, ", ")
			}
			out = append(out, d)
		}
		return out
	case "required":
		return diag.List{{Pos: node.Pos, Severity: diag.Error, Rule: RuleSchema,
			Message: fmt.Sprintf("%s: %s", dotted(path), ve.Message)}}
	}
	msg := ve.Message
	if f := friendly(path, kw, node); f != "" {
		msg = f
	}
	return diag.List{{Pos: node.Pos, Severity: diag.Error, Rule: RuleSchema,
		Message: fmt.Sprintf("%s: %s", dotted(path), msg)}}
}

// friendly rewords the validator's messages where the raw one (a regular
// expression, a const) would not tell a user what to write.
func friendly(path []string, kw string, n *tomlpos.Node) string {
	if len(path) == 0 || n == nil || n.Kind != tomlpos.String {
		return ""
	}
	switch last := path[len(path)-1]; {
	case last == "source" && kw == "pattern":
		return fmt.Sprintf("%q is not a valid tool source: use builtin[.<tool>], local[.<tool>] or mcp.<server>[.<tool>] (a bare \"mcp\" names no server)", n.Str)
	case last == "name" && kw == "pattern":
		return fmt.Sprintf("%q: '*' may only appear once, as the last character (a prefix match)", n.Str)
	case last == "write" && kw == "enum":
		return fmt.Sprintf("write must be true, false or \"insecure_allow\", not %q", n.Str)
	case last == "dedup" && kw == "enum":
		return fmt.Sprintf("dedup must be true, false or \"inherit\", not %q", n.Str)
	}
	return ""
}

var bareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// dotted renders a JSON pointer path the way TOML users write keys:
// conversation.tools.x.access.fs[0].read.
func dotted(path []string) string {
	if len(path) == 0 {
		return "(top level)"
	}
	var b strings.Builder
	for i, p := range path {
		if _, err := strconv.Atoi(p); err == nil && i > 0 {
			b.WriteString("[" + p + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		if bareKey.MatchString(p) {
			b.WriteString(p)
		} else {
			b.WriteString("'" + p + "'")
		}
	}
	return b.String()
}

var (
	accessKeys    = []string{"commands", "config", "env", "fs", "net", "sensitive_paths"}
	mergedKeys    = []string{"dedup", "discard_when_merged", "strategy", "value"}
	commandKeys   = []string{"args", "envs"}
	knownRuleKeys = map[string][]string{
		"fs":              {"create", "delete", "execute", "external", "path", "read", "update", "write"},
		"net":             {"allow", "host", "path_prefix", "port", "scheme"},
		"env":             {"name", "read"},
		"config":          {"apply", "delete", "path", "read", "write"},
		"sensitive_paths": nil,
	}
)

// knownKeys names the table at path and lists the keys it accepts, for
// unknown-key messages and suggestions.
func knownKeys(path []string) (string, []string) {
	if len(path) < 4 || path[0] != "conversation" || path[1] != "tools" || path[3] != "access" {
		if len(path) == 2 && path[0] == "extends" {
			return "an extends entry", []string{"path", "strategy"}
		}
		return dotted(path), nil
	}
	rest := path[4:]
	switch {
	case len(rest) == 0:
		return "access", accessKeys
	case rest[0] == "commands" && len(rest) == 2:
		return "access.commands." + rest[1], commandKeys
	case len(rest) == 1:
		return "access." + rest[0] + " (merge table)", mergedKeys
	case len(rest) == 2 || (len(rest) == 3 && rest[1] == "value"):
		return "an access." + rest[0] + " rule", knownRuleKeys[rest[0]]
	}
	return dotted(path), nil
}

// suggest returns the known key closest to key when it is a likely typo.
func suggest(key string, known []string) string {
	best, bestD := "", 3
	if len(key) <= 3 {
		bestD = 2
	}
	for _, k := range known {
		// A truncated key ("exec") is as likely a slip as a typo.
		if len(key) >= 3 && strings.HasPrefix(k, key) {
			return k
		}
		if d := editDistance(key, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

func sortDiags(l diag.List) {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}
