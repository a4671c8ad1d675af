package schema

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"github.com/jp-policy/jp-policy/internal/tomlquote"
	"strconv"
	"strings"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/suggest"
	"github.com/jp-policy/jp-policy/internal/tomlpos"
)

//go:embed schema.json
var schemaJSON []byte

// Rule IDs of the diagnostics Validate reports; lint documents them.
const (
	RuleSchema     = "JP002" // schema violation
	RuleUnknownKey = "JP003" // unknown key in any table the schema closes
)

// Schema returns the embedded JSON Schema (draft 2020-12) of the config
// jp-policy owns. It is permissive at the top so editors can use it on
// whole JP config files.
func Schema() []byte { return bytes.Clone(schemaJSON) }

// Validate checks one document tree against the embedded schema and maps
// every failure back to the position of the offending key or value. The
// config loader runs it on every layer; configdelta on the partial config
// of a tool outcome (RFD 078), so a delta is held to the same rules as a
// config file.
func Validate(root *tomlpos.Node) diag.List {
	cs, err := loadSchema()
	return validateWith(cs, err, root)
}

func validateWith(cs *compiledSchema, err error, root *tomlpos.Node) (out diag.List) {
	if err != nil {
		// The schema is embedded and tested; failing closed keeps a
		// broken build from passing every config as valid.
		return diag.List{{Pos: root.Pos, Severity: diag.Error, Rule: RuleSchema, Message: "internal error: schema does not compile: " + err.Error()}}
	}
	defer func() {
		// Nothing below should panic; if it does, the layer is reported
		// invalid rather than taking the process down or passing.
		if r := recover(); r != nil {
			out = diag.List{{Pos: root.Pos, Severity: diag.Error, Rule: RuleSchema, Message: fmt.Sprintf("internal error: schema validation failed: %v", r)}}
		}
	}()
	// The whole document is evaluated: the schema leaves JP's other keys
	// (system prompts, tool parameters) unconstrained, and the evaluator
	// does not descend into keys no "properties" names.
	violations := cs.validate(root)
	if len(violations) == 0 {
		return nil
	}
	seen := map[string]bool{}
	for _, v := range violations {
		for _, d := range mapError(cs, root, v) {
			k := d.Pos.String() + d.Message
			if !seen[k] {
				seen[k] = true
				out = append(out, d)
			}
		}
	}
	diag.Sort(out)
	return out
}

// mapError turns one violation into diagnostics at the offending key or
// value; an unknown key gets its own diagnostic, with a suggestion.
func mapError(cs *compiledSchema, root *tomlpos.Node, ve schemaViolation) diag.List {
	path := ve.Path
	node, _ := root.Lookup(path)
	kw := ve.Keyword
	switch kw {
	case "additionalProperties":
		var out diag.List
		what, known := knownKeys(path)
		if known == nil {
			// Tables without a hand-written list (the top level,
			// conversation, a tool, enable) take the keys schema.json
			// gives them, so a suggestion never goes stale.
			known = cs.keysAt(strings.TrimSuffix(ve.Loc, "/additionalProperties"))
		}
		for _, key := range ve.Names {
			pos := node.Pos
			if f := node.Get(key); f != nil && !f.KeyPos.IsZero() {
				pos = f.KeyPos
			}
			d := diag.Diagnostic{Pos: pos, Severity: diag.Error, Rule: RuleUnknownKey,
				Message: fmt.Sprintf("unknown key %q in %s", key, what)}
			if s := closestKey(key, known); s != "" {
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
	d := diag.Diagnostic{Pos: node.Pos, Severity: diag.Error, Rule: RuleSchema,
		Message: fmt.Sprintf("%s: %s", dotted(path), msg)}
	if kw == "enum" && node != nil && node.Kind == tomlpos.String {
		// `strategy = "replce"`: name the value that was meant.
		if c := suggest.Closest(node.Str, enumChoices(ve.Message)); len(c) > 0 {
			d.Help = fmt.Sprintf("did you mean %q?", c[0])
		}
	}
	return diag.List{d}
}

// enumChoices reads the allowed strings back out of an enum violation's
// message (`value must be one of "append", "prepend", "replace"`), whose
// values the schema compiler wrote as JSON.
func enumChoices(msg string) []string {
	_, list, ok := strings.Cut(msg, "value must be ")
	if !ok {
		return nil
	}
	list = strings.TrimPrefix(list, "one of ")
	var out []string
	for v := range strings.SplitSeq(list, ", ") {
		var s string
		if json.Unmarshal([]byte(v), &s) == nil {
			out = append(out, s)
		}
	}
	return out
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
	case last == "enable" && kw == "pattern":
		return fmt.Sprintf("%q is not an enable value: use true, false, \"on\", \"off\", \"always\", \"explicit\" or a { state, allow_toggle } table", n.Str)
	case last == "name" && kw == "pattern":
		return fmt.Sprintf("%q: '*' may only appear once, as the last character (a prefix match)", n.Str)
	case last == "write" && kw == "enum":
		return fmt.Sprintf("write must be true, false or \"insecure_allow\", not %q", n.Str)
	case last == "dedup" && kw == "enum":
		return fmt.Sprintf("dedup must be true, false or \"inherit\", not %q", n.Str)
	}
	return ""
}

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
		if tomlquote.Bare(p) {
			b.WriteString(p)
		} else {
			b.WriteString("'" + p + "'")
		}
	}
	return b.String()
}

var (
	accessKeys  = []string{"commands", "config", "env", "fs", "net", "sensitive_paths"}
	mergedKeys  = []string{"dedup", "discard_when_merged", "strategy", "value"}
	commandKeys = []string{"args", "envs"}
)

// knownRuleKeys lists the keys of one access rule kind. A switch rather
// than a map: a package-level map is built by code at every jp-policy
// start, exec included.
func knownRuleKeys(kind string) []string {
	switch kind {
	case "fs":
		return []string{"create", "delete", "execute", "external", "path", "read", "update", "write"}
	case "net":
		return []string{"allow", "host", "path_prefix", "port", "scheme"}
	case "env":
		return []string{"name", "read"}
	case "config":
		return []string{"apply", "delete", "path", "read", "write"}
	}
	return nil
}

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
		return "an access." + rest[0] + " rule", knownRuleKeys(rest[0])
	}
	return dotted(path), nil
}

// closestKey returns the known key a misspelt one most likely meant, or
// "". suggest.Closest ranks by edit distance; two slips it does not count
// as close are common in keys and were suggested before it existed: a
// truncated key ("exec" for "execute") and two swapped letters ("raed").
func closestKey(key string, known []string) string {
	if len(key) >= 3 {
		for _, k := range known {
			if k != key && strings.HasPrefix(k, key) {
				return k
			}
		}
	}
	if c := suggest.Closest(key, known); len(c) > 0 {
		return c[0]
	}
	for _, k := range known {
		if swapped(key, k) {
			return k
		}
	}
	return ""
}

// swapped reports whether b is a with two adjacent bytes exchanged.
func swapped(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
}
