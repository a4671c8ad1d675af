package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// The embedded schema.json is the single source of truth for what a config
// may contain. Rather than link a general JSON Schema library into every
// jp-policy start (santhosh-tekuri/jsonschema compiles its meta-schemas in
// its package init, milliseconds on the exec path), the loader compiles
// the document itself for exactly the keywords it uses. A keyword outside
// that subset is refused, never skipped: skipping would let a schema edit
// silently weaken validation. The library stays in the tests as an oracle
// (oracle_test.go).

// draft2020 is the only dialect the compiler speaks.
const draft2020 = "https://json-schema.org/draft/2020-12/schema"

// schemaDocError reports a schema.json the compiler cannot interpret: a
// keyword it does not implement or a malformed keyword value. Loc is the
// JSON pointer of the offending keyword inside the schema document.
type schemaDocError struct {
	Loc, Msg string
}

func (e *schemaDocError) Error() string { return "schema.json " + e.Loc + ": " + e.Msg }

// jsonTypeName reports whether t names a type of JSON Schema's "type" keyword.
func jsonTypeName(t string) bool {
	switch t {
	case "null", "boolean", "object", "array", "number", "integer", "string":
		return true
	}
	return false
}

// schemaNode is one compiled (sub)schema.
type schemaNode struct {
	loc string // JSON pointer inside schema.json, "#" for the root

	ref      *schemaNode
	refName  string
	types    []string // nil: any type
	props    []prop   // sorted by name
	required []string
	// additional is the schema for properties not in props; nil when the
	// keyword is absent or true. noAdditional is additionalProperties: false.
	additional   *schemaNode
	noAdditional bool
	items        *schemaNode
	enum         []enumValue
	enumMsg      string
	pattern      *pattern
	minLength    int // -1: absent
	minimum      *bound
	maximum      *bound
}

// pattern is a "pattern" keyword's regular expression, compiled on first
// use: most configs never reach the few strings the schema constrains
// with one, and compiling one allocates fresh memory at start-up
// (compileSchema has already checked that src compiles).
type pattern struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

func (p *pattern) MatchString(s string) bool {
	if m := knownPattern(p.src); m != nil {
		return m(s)
	}
	p.once.Do(func() { p.re = regexp.MustCompile(p.src) })
	return p.re.MatchString(s)
}

// knownPattern returns a hand-written matcher for the patterns of the
// built-in schema, or nil. Compiling one of them allocates more than the
// rest of a small lint's validation (a tool `source` or an env rule
// `name` in any config reaches one), and lint is a short-lived process
// whose cost follows the fresh memory it touches (docs/lint.md).
// FuzzKnownPatterns checks each against regexp, which stays the matcher
// of every other pattern.
func knownPattern(src string) func(string) bool {
	switch src {
	case `^[^*]*\*?$`: // env rule names: at most one `*`, at the end
		return func(s string) bool {
			i := strings.IndexByte(s, '*')
			return i < 0 || i == len(s)-1
		}
	case `^(true|false|on|off|always|explicit)$`:
		return func(s string) bool {
			switch s {
			case "true", "false", "on", "off", "always", "explicit":
				return true
			}
			return false
		}
	case `^((builtin|local)(\..*)?|mcp\.[^.]+(\..*)?)$`:
		return toolSource
	}
	return nil
}

// toolSource is `^((builtin|local)(\..*)?|mcp\.[^.]+(\..*)?)$`: `.`
// matches anything but a newline, `[^.]` anything but a dot.
func toolSource(s string) bool {
	for _, kind := range [...]string{"builtin", "local"} {
		if rest, ok := strings.CutPrefix(s, kind); ok {
			return rest == "" || rest[0] == '.' && !strings.Contains(rest, "\n")
		}
	}
	rest, ok := strings.CutPrefix(s, "mcp.")
	if !ok {
		return false
	}
	server, sub, dotted := strings.Cut(rest, ".")
	return server != "" && (!dotted || !strings.Contains(sub, "\n"))
}

// prop is one named subschema: a property, or a definition.
type prop struct {
	name string
	node *schemaNode
}

// prop returns the subschema of property name, or nil.
func (n *schemaNode) prop(name string) *schemaNode {
	if i, ok := slices.BinarySearchFunc(n.props, name, func(p prop, name string) int { return strings.Compare(p.name, name) }); ok {
		return n.props[i].node
	}
	return nil
}

// enumValue is one primitive enum entry (objects and arrays are refused).
type enumValue struct {
	kind string // "null", "boolean", "string", "number"
	str  string
	b    bool
	num  string // exact, as big.Rat.RatString prints it
}

// bound is a minimum or maximum, exact, with an int64 shortcut so integer
// instances compare without allocating.
type bound struct {
	rat   string // exact, as big.Rat.RatString prints it
	isInt bool
	i     int64
	f     float64 // for messages, as the reference validator prints it
}

// compiledSchema is schema.json ready to evaluate.
type compiledSchema struct {
	root *schemaNode
	defs []prop // sorted by name
}

//go:generate go test -run TestBuiltinSchemaUpToDate -update

// loadSchema returns the compiled schema. It does not decode schema.json:
// builtinSchema (builtin_schema.go) is compileSchema's result written out
// as Go by TestBuiltinSchemaUpToDate, which fails when schema.json and
// the generated file disagree. Decoding and compiling the JSON would be
// paid by every lint, compile and check run; the generated nodes are
// static data the linker lays out, so nothing runs to build them.
func loadSchema() (*compiledSchema, error) { return builtinSchema(), nil }

// keysAt lists, sorted, the properties of the subschema at loc (a JSON
// pointer inside schema.json, as schemaViolation.Loc has), or nil.
func (cs *compiledSchema) keysAt(loc string) []string {
	seen := map[*schemaNode]bool{}
	var find func(n *schemaNode) *schemaNode
	find = func(n *schemaNode) *schemaNode {
		if n == nil || seen[n] {
			return nil
		}
		seen[n] = true
		if n.loc == loc {
			return n
		}
		for _, c := range []*schemaNode{n.ref, n.additional, n.items} {
			if f := find(c); f != nil {
				return f
			}
		}
		for _, c := range n.props {
			if f := find(c.node); f != nil {
				return f
			}
		}
		return nil
	}
	n := find(cs.root)
	for _, d := range cs.defs {
		if n == nil {
			n = find(d.node)
		}
	}
	if n == nil {
		return nil
	}
	keys := make([]string, 0, len(n.props))
	for _, p := range n.props {
		keys = append(keys, p.name)
	}
	return keys
}

type schemaCompiler struct {
	defs map[string]*schemaNode
	raw  map[string]any
}

func compileSchema(doc []byte) (*compiledSchema, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber() // bounds stay exact decimals
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, &schemaDocError{Loc: "#", Msg: "not JSON: " + err.Error()}
	}
	if dec.More() {
		return nil, &schemaDocError{Loc: "#", Msg: "trailing data after the schema"}
	}
	root, ok := v.(map[string]any)
	if !ok {
		return nil, &schemaDocError{Loc: "#", Msg: "the schema must be an object"}
	}
	if s, _ := root["$schema"].(string); s != draft2020 {
		return nil, &schemaDocError{Loc: "#/$schema", Msg: fmt.Sprintf("must be %q: other drafts have other semantics", draft2020)}
	}
	c := &schemaCompiler{defs: map[string]*schemaNode{}}
	if d, present := root["$defs"]; present {
		dm, ok := d.(map[string]any)
		if !ok {
			return nil, &schemaDocError{Loc: "#/$defs", Msg: "must be an object"}
		}
		c.raw = dm
		// Every definition is compiled, referenced or not, so that no
		// keyword anywhere in the file escapes the check.
		for _, name := range slices.Sorted(maps.Keys(dm)) {
			if _, err := c.def(name); err != nil {
				return nil, err
			}
		}
	}
	rn, err := c.node(root, "#", true)
	if err != nil {
		return nil, err
	}
	cs := &compiledSchema{root: rn}
	for _, name := range slices.Sorted(maps.Keys(c.defs)) {
		n := c.defs[name]
		if err := checkRefCycle(n); err != nil {
			return nil, err
		}
		cs.defs = append(cs.defs, prop{name, n})
	}
	return cs, nil
}

// def compiles (or returns) the definition name; placeholders make
// recursive definitions terminate.
func (c *schemaCompiler) def(name string) (*schemaNode, error) {
	if n, ok := c.defs[name]; ok {
		return n, nil
	}
	loc := "#/$defs/" + name
	raw, ok := c.raw[name].(map[string]any)
	if !ok {
		return nil, &schemaDocError{Loc: loc, Msg: "missing, or not a schema object"}
	}
	n := &schemaNode{loc: loc, minLength: -1}
	c.defs[name] = n
	if err := c.fill(n, raw, false); err != nil {
		return nil, err
	}
	return n, nil
}

func (c *schemaCompiler) node(v any, loc string, root bool) (*schemaNode, error) {
	m, ok := v.(map[string]any)
	if !ok {
		// Boolean schemas are valid JSON Schema but not in the subset
		// (additionalProperties: false is handled by that keyword).
		return nil, &schemaDocError{Loc: loc, Msg: "subschema must be an object"}
	}
	n := &schemaNode{loc: loc, minLength: -1}
	return n, c.fill(n, m, root)
}

func (c *schemaCompiler) fill(n *schemaNode, m map[string]any, root bool) error {
	for _, kw := range slices.Sorted(maps.Keys(m)) {
		arg := m[kw]
		loc := n.loc + "/" + escapeToken(kw)
		bad := func(format string, a ...any) error { return &schemaDocError{Loc: loc, Msg: fmt.Sprintf(format, a...)} }
		switch kw {
		case "title", "description":
			if _, ok := arg.(string); !ok {
				return bad("must be a string")
			}
		case "$schema", "$id", "$defs":
			// Only meaningful at the root here: a nested $id would move
			// the base URI $ref resolves against, nested $defs would be
			// unreachable through "#/$defs/...".
			if !root {
				return bad("only supported at the schema root")
			}
			if _, ok := arg.(string); !ok && kw != "$defs" {
				return bad("must be a string")
			}
		case "$ref":
			ref, _ := arg.(string)
			name, ok := strings.CutPrefix(ref, "#/$defs/")
			if !ok || name == "" || strings.ContainsAny(name, "/~%") {
				return bad("only \"#/$defs/<name>\" references are supported, not %q", ref)
			}
			t, err := c.def(name)
			if err != nil {
				return err
			}
			n.ref, n.refName = t, name
		case "type":
			switch t := arg.(type) {
			case string:
				n.types = []string{t}
			case []any:
				for _, x := range t {
					s, _ := x.(string)
					n.types = append(n.types, s)
				}
			default:
				return bad("must be a type name or an array of them")
			}
			if len(n.types) == 0 {
				return bad("names no type")
			}
			for _, t := range n.types {
				if !jsonTypeName(t) {
					return bad("unknown type %q", t)
				}
			}
		case "properties":
			pm, ok := arg.(map[string]any)
			if !ok {
				return bad("must be an object")
			}
			n.props = make([]prop, 0, len(pm))
			for _, p := range slices.Sorted(maps.Keys(pm)) {
				sub, err := c.node(pm[p], loc+"/"+escapeToken(p), false)
				if err != nil {
					return err
				}
				n.props = append(n.props, prop{p, sub})
			}
		case "additionalProperties":
			switch a := arg.(type) {
			case bool:
				n.noAdditional = !a
			default:
				sub, err := c.node(a, loc, false)
				if err != nil {
					return err
				}
				n.additional = sub
			}
		case "required":
			names, ok := arg.([]any)
			if !ok {
				return bad("must be an array of strings")
			}
			for _, x := range names {
				s, ok := x.(string)
				if !ok {
					return bad("must be an array of strings")
				}
				n.required = append(n.required, s)
			}
		case "items":
			// 2020-12 items is one schema; the array (tuple) form is
			// prefixItems, which is not in the subset.
			sub, err := c.node(arg, loc, false)
			if err != nil {
				return err
			}
			n.items = sub
		case "enum":
			opts, ok := arg.([]any)
			if !ok || len(opts) == 0 {
				return bad("must be a non-empty array")
			}
			msgs := make([]string, len(opts))
			for i, o := range opts {
				ev, msg, err := enumEntry(o)
				if err != nil {
					return bad("%v", err)
				}
				n.enum = append(n.enum, ev)
				msgs[i] = msg
			}
			// Worded as the reference validator words it, so diagnostics
			// did not change when it left the binary.
			if len(msgs) == 1 {
				n.enumMsg = "value must be " + msgs[0]
			} else {
				n.enumMsg = "value must be one of " + strings.Join(msgs, ", ")
			}
		case "pattern":
			p, ok := arg.(string)
			if !ok {
				return bad("must be a string")
			}
			if _, err := regexp.Compile(p); err != nil {
				return bad("%v", err)
			}
			n.pattern = &pattern{src: p}
		case "minLength":
			b, err := number(arg)
			if err != nil || !b.isInt || b.i < 0 || b.i > 1<<31 {
				return bad("must be a non-negative integer")
			}
			n.minLength = int(b.i)
		case "minimum", "maximum":
			b, err := number(arg)
			if err != nil {
				return bad("%v", err)
			}
			if kw == "minimum" {
				n.minimum = b
			} else {
				n.maximum = b
			}
		default:
			return bad("keyword %q is not implemented by jp-policy's schema validator; implement it (and its oracle test) before using it", kw)
		}
	}
	return nil
}

func number(arg any) (*bound, error) {
	num, ok := arg.(json.Number)
	if !ok {
		return nil, fmt.Errorf("must be a number")
	}
	r, ok := new(big.Rat).SetString(num.String())
	if !ok {
		return nil, fmt.Errorf("must be a number")
	}
	f, _ := r.Float64()
	b := &bound{rat: r.RatString(), f: f}
	if r.IsInt() && r.Num().IsInt64() {
		b.isInt, b.i = true, r.Num().Int64()
	}
	return b, nil
}

func enumEntry(o any) (enumValue, string, error) {
	switch x := o.(type) {
	case nil:
		return enumValue{kind: "null"}, "<nil>", nil
	case bool:
		return enumValue{kind: "boolean", b: x}, fmt.Sprintf("%#v", x), nil
	case string:
		return enumValue{kind: "string", str: x}, fmt.Sprintf("%#v", x), nil
	case json.Number:
		b, err := number(x)
		if err != nil {
			return enumValue{}, "", err
		}
		return enumValue{kind: "number", num: b.rat}, x.String(), nil
	}
	return enumValue{}, "", fmt.Errorf("only null, boolean, string and number entries are supported")
}

// checkRefCycle refuses a chain of $refs that comes back to where it
// started without descending into the instance: evaluating it would never
// end.
func checkRefCycle(n *schemaNode) error {
	seen := map[*schemaNode]bool{}
	for cur := n; cur != nil; cur = cur.ref {
		if seen[cur] {
			return &schemaDocError{Loc: n.loc, Msg: "$ref cycle"}
		}
		seen[cur] = true
	}
	return nil
}

// escapeToken escapes one JSON pointer token (RFC 6901).
func escapeToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// exactRat is a number of the generated schema (builtin_schema.go), as
// big.Rat.RatString printed it.
func exactRat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic("schema: bad generated number " + s)
	}
	return r
}
