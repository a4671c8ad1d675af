package tomlpos

import (
	"math"
	"strconv"

	"github.com/jp-policy/jp-policy/internal/diag"
)

// Kind is the type of a Node. A byte, so it packs with Bool and origin
// (a workspace's tree has a Node per key; docs/lint.md).
type Kind uint8

const (
	Table Kind = iota
	Array
	String
	Integer
	Float
	Bool
	// DateTime holds any TOML date, time or date-time; Str keeps its text.
	DateTime
	// Null only comes from JSON layers.
	Null
)

func (k Kind) String() string {
	switch k {
	case Table:
		return "table"
	case Array:
		return "array"
	case String:
		return "string"
	case Integer:
		return "integer"
	case Float:
		return "float"
	case Bool:
		return "boolean"
	case DateTime:
		return "datetime"
	case Null:
		return "null"
	}
	return "unknown"
}

// Node is one key's value. Pos is where the value starts (the `[header]`
// or `[[header]]` for tables and array-of-tables elements declared that
// way, the `{` of an inline table); KeyPos is where the key naming it was
// written, zero for array elements and the root.
type Node struct {
	Pos    diag.Position
	KeyPos diag.Position

	Str   string
	Int   int64
	Float float64

	// Keys lists a table's keys in the order they first appeared.
	Keys   []string
	Fields map[string]*Node
	Items  []*Node

	Kind Kind
	Bool bool
	// origin records how a table came to exist, to reject TOML that
	// redefines a table or extends an inline one.
	origin tableOrigin
}

type tableOrigin uint8

const (
	originImplicit  tableOrigin = iota // intermediate of a header or dotted key
	originHeader                       // [header]
	originDotted                       // a.b = 1 created it
	originInline                       // { ... }: frozen
	originArrayElem                    // [[header]] element
	// originInlineDotted is a table a dotted key made inside an inline
	// table (`t = { a.b = 1 }` makes a): frozen with it, and the only kind
	// of table a later dotted key of the same inline table may extend
	// (`{ a = { b = 1 }, a.c = 2 }` is an error in TOML and for JP).
	originInlineDotted
)

// Get returns a table's field, or nil when n is not a table or lacks key.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != Table {
		return nil
	}
	return n.Fields[key]
}

// Lookup follows a path of table keys and array indexes (decimal strings),
// as in a JSON pointer, and returns the deepest node reached and how many
// path elements it consumed.
func (n *Node) Lookup(path []string) (*Node, int) {
	cur := n
	for i, p := range path {
		var next *Node
		switch cur.Kind {
		case Table:
			next = cur.Fields[p]
		case Array:
			if idx, err := strconv.Atoi(p); err == nil && idx >= 0 && idx < len(cur.Items) {
				next = cur.Items[idx]
			}
		}
		if next == nil {
			return cur, i
		}
		cur = next
	}
	return cur, len(path)
}

// Value converts the tree to plain Go values in encoding/json's shape
// (map[string]any, []any, string, float64 or int64, bool, nil) for the
// schema validator.
func (n *Node) Value() any {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case Table:
		m := make(map[string]any, len(n.Fields))
		for k, v := range n.Fields {
			m[k] = v.Value()
		}
		return m
	case Array:
		a := make([]any, len(n.Items))
		for i, v := range n.Items {
			a[i] = v.Value()
		}
		return a
	case String, DateTime:
		return n.Str
	case Integer:
		return n.Int
	case Float:
		// JSON has no NaN or infinities and the schema validator cannot
		// compare them; the largest finite float keeps them numbers that
		// fail any range a schema sets.
		switch {
		case math.IsNaN(n.Float), math.IsInf(n.Float, 1):
			return math.MaxFloat64
		case math.IsInf(n.Float, -1):
			return -math.MaxFloat64
		}
		return n.Float
	case Bool:
		return n.Bool
	}
	return nil
}

// set adds or replaces a table field, keeping Keys ordered.
func (n *Node) set(key string, v *Node) {
	if n.Fields == nil {
		n.Fields = make(map[string]*Node)
	}
	if _, ok := n.Fields[key]; !ok {
		n.Keys = append(n.Keys, key)
	}
	n.Fields[key] = v
}

// NewTable returns an empty table node, for callers that synthesise a
// layer (such as one built from environment variables).
func NewTable(pos diag.Position) *Node { return &Node{Kind: Table, Pos: pos} }

// Set adds or replaces a table field, keeping Keys in first-seen order.
func (n *Node) Set(key string, v *Node) { n.set(key, v) }

// Walk calls fn on n and every node below it, depth first.
func (n *Node) Walk(fn func(*Node)) {
	if n == nil {
		return
	}
	fn(n)
	for _, k := range n.Keys {
		n.Fields[k].Walk(fn)
	}
	for _, it := range n.Items {
		it.Walk(fn)
	}
}
