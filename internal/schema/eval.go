package schema

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jp-policy/jp-policy/internal/tomlpos"
)

// schemaViolation is one leaf failure: the instance location, the keyword
// that failed and a message worded as santhosh-tekuri/jsonschema words it
// (lint goldens and users saw those before the library left the binary).
type schemaViolation struct {
	Path    []string // instance location, one unescaped token per key or index
	Keyword string   // "type", "required", "additionalProperties", ...
	Loc     string   // the keyword's JSON pointer inside schema.json
	Message string
	// Names are the offending keys of an additionalProperties: false
	// failure, in document order; it is reported once, at the table.
	Names []string
}

// Pointer is the instance location as a JSON pointer (RFC 6901).
func (v schemaViolation) Pointer() string {
	var b strings.Builder
	for _, p := range v.Path {
		b.WriteByte('/')
		b.WriteString(escapeToken(p))
	}
	return b.String()
}

// pathElem is one step of the instance location, kept unformatted until a
// failure needs it so that a valid document costs no allocations for it.
type pathElem struct {
	key string
	idx int // -1 for a table key
}

type evaluator struct {
	path []pathElem
	out  []schemaViolation
}

// validate evaluates the tree against the compiled schema and returns
// every leaf failure.
func (cs *compiledSchema) validate(v *tomlpos.Node) []schemaViolation {
	e := evaluator{path: make([]pathElem, 0, 16)}
	e.eval(cs.root, v)
	return e.out
}

func (e *evaluator) fail(s *schemaNode, kw, msg string, names []string) {
	path := make([]string, len(e.path))
	for i, p := range e.path {
		if p.idx >= 0 {
			path[i] = strconv.Itoa(p.idx)
		} else {
			path[i] = p.key
		}
	}
	e.out = append(e.out, schemaViolation{Path: path, Keyword: kw, Loc: s.loc + "/" + kw, Message: msg, Names: names})
}

func (e *evaluator) child(s *schemaNode, v *tomlpos.Node, key string, idx int) {
	e.path = append(e.path, pathElem{key, idx})
	e.eval(s, v)
	e.path = e.path[:len(e.path)-1]
}

// eval applies every keyword of s to v. As in JSON Schema, a keyword
// constrains only instances of the types it is about (minLength says
// nothing about a number), and a type mismatch is the only failure
// reported for that schema: the rest would be noise about a value that is
// already wrong.
func (e *evaluator) eval(s *schemaNode, v *tomlpos.Node) {
	if len(s.types) > 0 && !typeMatches(s.types, v) {
		e.failType(s, v)
		return
	}
	if s.enum != nil && !enumContains(s.enum, v) {
		e.fail(s, "enum", s.enumMsg, nil)
	}
	switch v.Kind {
	case tomlpos.Table:
		e.object(s, v)
	case tomlpos.Array:
		if s.items != nil {
			for i, it := range v.Items {
				e.child(s.items, it, "", i)
			}
		}
	case tomlpos.String:
		e.str(s, v)
	case tomlpos.Integer, tomlpos.Float:
		e.number(s, v)
	}
	if s.ref != nil {
		// In 2020-12 $ref is an in-place applicator beside its siblings.
		e.eval(s.ref, v)
	}
}

// eval, object and child recurse once per level of the config, so they
// keep small frames: the leaf checks and the failure messages (fmt's
// argument arrays) live in functions of their own. The stack a deep
// config needs is memory a short-lived process touches for the first
// time (docs/lint.md).

//go:noinline
func (e *evaluator) failType(s *schemaNode, v *tomlpos.Node) {
	e.fail(s, "type", fmt.Sprintf("expected %s, but got %s", strings.Join(s.types, " or "), jsonType(v)), nil)
}

//go:noinline
func (e *evaluator) str(s *schemaNode, v *tomlpos.Node) {
	if s.minLength >= 0 {
		if n := utf8.RuneCountInString(v.Str); n < s.minLength {
			e.fail(s, "minLength", fmt.Sprintf("length must be >= %d, but got %d", s.minLength, n), nil)
		}
	}
	if s.pattern != nil && !s.pattern.MatchString(v.Str) {
		e.fail(s, "pattern", "does not match pattern "+quote(s.pattern.src), nil)
	}
}

//go:noinline
func (e *evaluator) number(s *schemaNode, v *tomlpos.Node) {
	if s.minimum != nil && compareNumber(v, s.minimum) < 0 {
		e.fail(s, "minimum", fmt.Sprintf("must be >= %v but found %s", s.minimum.f, numberText(v)), nil)
	}
	if s.maximum != nil && compareNumber(v, s.maximum) > 0 {
		e.fail(s, "maximum", fmt.Sprintf("must be <= %v but found %s", s.maximum.f, numberText(v)), nil)
	}
}

func (e *evaluator) object(s *schemaNode, v *tomlpos.Node) {
	if len(s.required) > 0 {
		e.required(s, v)
	}
	var extra []string
	for _, k := range v.Keys {
		val := v.Fields[k]
		if sub := s.prop(k); sub != nil {
			e.child(sub, val, k, -1)
			continue
		}
		switch {
		case s.noAdditional:
			extra = append(extra, k)
		case s.additional != nil:
			e.child(s.additional, val, k, -1)
		}
	}
	if extra != nil {
		e.failExtra(s, extra)
	}
}

//go:noinline
func (e *evaluator) required(s *schemaNode, v *tomlpos.Node) {
	var missing []string
	for _, r := range s.required {
		if _, ok := v.Fields[r]; !ok {
			missing = append(missing, quote(r))
		}
	}
	if missing != nil {
		e.fail(s, "required", "missing properties: "+strings.Join(missing, ", "), nil)
	}
}

//go:noinline
func (e *evaluator) failExtra(s *schemaNode, extra []string) {
	q := make([]string, len(extra))
	for i, k := range extra {
		q[i] = quote(k)
	}
	e.fail(s, "additionalProperties", "additionalProperties "+strings.Join(q, ", ")+" not allowed", extra)
}

// jsonType names v's type as JSON Schema sees it. A TOML date is no JSON
// value at all: it matches no type, so a date where a string is wanted is
// reported instead of silently dropped later by the decoder.
func jsonType(v *tomlpos.Node) string {
	switch v.Kind {
	case tomlpos.Table:
		return "object"
	case tomlpos.Array:
		return "array"
	case tomlpos.String:
		return "string"
	case tomlpos.Integer, tomlpos.Float:
		return "number"
	case tomlpos.Bool:
		return "boolean"
	case tomlpos.Null:
		return "null"
	case tomlpos.DateTime:
		return "datetime"
	}
	return "unknown"
}

func typeMatches(types []string, v *tomlpos.Node) bool {
	t := jsonType(v)
	for _, want := range types {
		if want == t || want == "integer" && isInteger(v) {
			return true
		}
	}
	return false
}

// isInteger follows JSON Schema: a number with a zero fractional part is
// an integer, so port = 443.0 is one. NaN and the infinities count as the
// largest finite floats (see numberValue), which are integers that fail
// any range the schema sets.
func isInteger(v *tomlpos.Node) bool {
	switch v.Kind {
	case tomlpos.Integer:
		return true
	case tomlpos.Float:
		f := numberValue(v.Float)
		return f == math.Trunc(f)
	}
	return false
}

// numberValue maps the TOML floats JSON has no counterpart for to the
// largest finite ones: a NaN port is out of range, never in it, and
// nan/inf keep their type "number" (tomlpos.Node.Value does the same for
// JSON consumers).
func numberValue(f float64) float64 {
	switch {
	case math.IsNaN(f), math.IsInf(f, 1):
		return math.MaxFloat64
	case math.IsInf(f, -1):
		return -math.MaxFloat64
	}
	return f
}

func numberText(v *tomlpos.Node) string {
	if v.Kind == tomlpos.Integer {
		return strconv.FormatInt(v.Int, 10)
	}
	switch f := v.Float; {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	default:
		return fmt.Sprint(f)
	}
}

// compareNumber compares v (Integer or Float) with b exactly.
func compareNumber(v *tomlpos.Node, b *bound) int {
	if v.Kind == tomlpos.Integer && b.isInt {
		switch {
		case v.Int < b.i:
			return -1
		case v.Int > b.i:
			return 1
		}
		return 0
	}
	return numberRat(v).Cmp(exactRat(b.rat))
}

func numberRat(v *tomlpos.Node) *big.Rat {
	if v.Kind == tomlpos.Integer {
		return new(big.Rat).SetInt64(v.Int)
	}
	return new(big.Rat).SetFloat64(numberValue(v.Float))
}

func enumContains(opts []enumValue, v *tomlpos.Node) bool {
	for _, o := range opts {
		switch o.kind {
		case "null":
			if v.Kind == tomlpos.Null {
				return true
			}
		case "boolean":
			if v.Kind == tomlpos.Bool && v.Bool == o.b {
				return true
			}
		case "string":
			if v.Kind == tomlpos.String && v.Str == o.str {
				return true
			}
		case "number":
			if (v.Kind == tomlpos.Integer || v.Kind == tomlpos.Float) && numberRat(v).Cmp(exactRat(o.num)) == 0 {
				return true
			}
		}
	}
	return false
}

// quote renders s in single quotes the way the reference validator does
// ('raed'); mapError's callers read names from Names, not from this text.
func quote(s string) string {
	q := strconv.Quote(s)
	q = strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`)
	return "'" + strings.ReplaceAll(q, `'`, `\'`) + "'"
}
