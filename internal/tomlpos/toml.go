package tomlpos

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/jp-policy/jp-policy/internal/diag"
	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// ParseTOML parses a TOML document. Syntax errors, including the semantic
// ones of TOML 1.0 (a key defined twice, a table redefined, an inline
// table extended), come back as *SyntaxError with their position. The
// rules mirror go-toml's decoder; FuzzTOMLAgreesWithDecoder checks that
// both accept the same documents.
func ParseTOML(file string, data []byte) (root *Node, err error) {
	defer func() {
		// go-toml is fuzzed, but a panic here must not take the whole
		// command down: a broken file is a finding, not a crash.
		if r := recover(); r != nil {
			root, err = nil, &SyntaxError{Pos: diag.Position{File: file}, Message: fmt.Sprintf("cannot parse: %v", r)}
		}
	}()
	s := scratchPool.Get().(*scratch)
	b := &builder{li: newLineIndex(file, data), data: data, scratch: s}
	if n := SkipBOMs(data); n > 0 {
		// go-toml's parser does not skip a byte order mark; JP does.
		// Offsets stay those of data.
		b.data, b.li.base = data[n:], n
	}
	root, err = b.build()
	// Not reached after a panic: a parser in an unknown state is dropped.
	if len(s.names) > maxNames {
		s.names = nil
	}
	scratchPool.Put(s)
	return root, err
}

// bom is the UTF-8 byte order mark.
var bom = []byte{0xEF, 0xBB, 0xBF}

// SkipBOMs returns how many bytes of UTF-8 byte order marks data starts
// with. JP's loader (schematic) trims every leading mark from a config
// file, whatever its format, before parsing it (`trim_start_matches`), and
// its toml crate would skip one more.
func SkipBOMs(data []byte) int {
	n := 0
	for bytes.HasPrefix(data[n:], bom) {
		n += len(bom)
	}
	return n
}

// scratch is what parses reuse, one document after another: go-toml's
// parser (its AST buffer grows to the largest document), the key-part
// buffer and one string per distinct key name. A workspace repeats the
// same keys (path, read, write) in every rule of every file, and a
// short-lived process pays for every fresh heap page it touches
// (docs/lint.md); a config of many files would otherwise allocate a
// parser buffer per file. Nothing in a returned tree points into it.
type scratch struct {
	p     unstable.Parser
	parts []keyPart
	names map[string]string
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// maxNames bounds the key-name cache of a long-lived process that parses
// many unrelated documents.
const maxNames = 4096

// builder turns go-toml's AST into a Node tree.
type builder struct {
	li   *lineIndex
	data []byte
	*scratch
}

// intern returns the key name d as a string, one allocation per distinct
// name.
func (b *builder) intern(d []byte) string {
	if s, ok := b.names[string(d)]; ok {
		return s
	}
	if b.names == nil {
		b.names = make(map[string]string)
	}
	s := string(d)
	b.names[s] = s
	return s
}

func (b *builder) errAt(off int, format string, args ...any) error {
	return &SyntaxError{Pos: b.li.pos(off), Message: fmt.Sprintf(format, args...)}
}

func (b *builder) build() (*Node, error) {
	p := &b.p
	p.Reset(b.data)
	root := &Node{Kind: Table, Pos: diag.Position{File: b.li.file, Line: 1, Col: 1}, origin: originHeader}
	cur := root
	for p.NextExpression() {
		e := p.Expression()
		var err error
		switch e.Kind {
		case unstable.KeyValue:
			_, err = b.keyValue(cur, e, originDotted)
		case unstable.Table, unstable.ArrayTable:
			cur, err = b.header(root, e)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := p.Error(); err != nil {
		var pe *unstable.ParserError
		if errors.As(err, &pe) && pe.Highlight != nil {
			return nil, b.errAt(cap(b.data)-cap(pe.Highlight), "%s", pe.Message)
		}
		return nil, &SyntaxError{Pos: diag.Position{File: b.li.file}, Message: err.Error()}
	}
	return root, nil
}

type keyPart struct {
	name string
	off  int
	end  int
}

// keyParts returns the parts of e's key in the builder's buffer, valid
// until the next call: the callers are done with them (keyValue copies
// the last part) before a nested inline table reads its own keys.
func (b *builder) keyParts(e *unstable.Node) []keyPart {
	parts := b.parts[:0]
	it := e.Key()
	for it.Next() {
		k := it.Node()
		parts = append(parts, keyPart{name: b.intern(k.Data), off: int(k.Raw.Offset), end: int(k.Raw.Offset + k.Raw.Length)})
	}
	b.parts = parts
	return parts
}

// headerStart finds the `[` (or the first `[` of `[[`) before a header's
// first key.
func (b *builder) headerStart(keyOff int, double bool) int {
	i := keyOff - 1
	for i >= 0 && (b.data[i] == ' ' || b.data[i] == '\t') {
		i--
	}
	if i >= 0 && b.data[i] == '[' {
		if double && i > 0 && b.data[i-1] == '[' {
			return i - 1
		}
		return i
	}
	return keyOff
}

func (b *builder) header(root *Node, e *unstable.Node) (*Node, error) {
	parts := b.keyParts(e)
	if len(parts) == 0 {
		return nil, b.errAt(0, "empty table header")
	}
	isArray := e.Kind == unstable.ArrayTable
	last := parts[len(parts)-1]
	hend := b.closing(last.end, ']')
	if isArray {
		hend = b.closing(hend, ']')
	}
	hpos := b.li.span(b.headerStart(parts[0].off, isArray), hend)
	t := root
	for _, kp := range parts[:len(parts)-1] {
		next, err := b.descend(t, kp, hpos)
		if err != nil {
			return nil, err
		}
		t = next
	}
	existing := t.Fields[last.name]
	if isArray {
		if existing == nil {
			existing = &Node{Kind: Array, Pos: hpos, KeyPos: b.li.span(last.off, last.end), origin: originArrayElem}
			t.set(last.name, existing)
		} else if existing.Kind != Array || existing.origin != originArrayElem {
			return nil, b.errAt(last.off, "key %q is already defined and is not an array of tables", last.name)
		}
		elem := &Node{Kind: Table, Pos: hpos, origin: originArrayElem}
		existing.Items = append(existing.Items, elem)
		return elem, nil
	}
	switch {
	case existing == nil:
		n := &Node{Kind: Table, Pos: hpos, KeyPos: b.li.span(last.off, last.end), origin: originHeader}
		t.set(last.name, n)
		return n, nil
	case existing.Kind == Table && existing.origin == originImplicit:
		existing.origin = originHeader
		existing.Pos = hpos
		return existing, nil
	}
	return nil, b.errAt(last.off, "table %q is already defined", last.name)
}

// descend walks one header key part, creating implicit tables and
// entering the last element of an array of tables.
func (b *builder) descend(t *Node, kp keyPart, hpos diag.Position) (*Node, error) {
	existing := t.Fields[kp.name]
	switch {
	case existing == nil:
		n := &Node{Kind: Table, Pos: hpos, KeyPos: b.li.span(kp.off, kp.end), origin: originImplicit}
		t.set(kp.name, n)
		return n, nil
	case existing.Kind == Table && existing.origin != originInline && existing.origin != originInlineDotted:
		return existing, nil
	case existing.Kind == Array && existing.origin == originArrayElem && len(existing.Items) > 0:
		return existing.Items[len(existing.Items)-1], nil
	case existing.Kind == Table:
		return nil, b.errAt(kp.off, "table %q is an inline table ({ ... }), which a [header] cannot extend: write all its keys inside its braces, or make it a [header] table", kp.name)
	}
	return nil, b.errAt(kp.off, "key %q is already defined as a %s", kp.name, existing.Kind)
}

// keyValue adds `key = value` to t. origin says where the pair stands:
// at table level (originDotted) or inside an inline table
// (originInlineDotted); intermediate tables a dotted key creates get that
// origin, and a dotted key may extend only a table of its own origin: at
// table level not a [table] nor an inline table, inside an inline table
// not an inline table written as a value (`{ a = { b = 1 }, a.c = 2 }`,
// which go-toml and JP's toml crate refuse). It returns the offset just
// past the value.
func (b *builder) keyValue(t *Node, e *unstable.Node, origin tableOrigin) (int, error) {
	parts := b.keyParts(e)
	if len(parts) == 0 {
		return 0, b.errAt(0, "empty key")
	}
	for _, kp := range parts[:len(parts)-1] {
		existing := t.Fields[kp.name]
		switch {
		case existing == nil:
			n := &Node{Kind: Table, Pos: b.li.pos(kp.off), KeyPos: b.li.span(kp.off, kp.end), origin: origin}
			t.set(kp.name, n)
			t = n
		case existing.Kind == Table && existing.origin == origin:
			t = existing
		case origin == originInlineDotted && existing.Kind == Table:
			return 0, b.errAt(kp.off, "table %q is an inline table ({ ... }), which a dotted key cannot extend: write the key inside its braces", kp.name)
		case origin == originInlineDotted:
			return 0, b.errAt(kp.off, "key %q is already defined as a %s", kp.name, existing.Kind)
		case existing.Kind == Table && existing.origin == originImplicit:
			// `[a.b.c]` then `[a]` with `b.d = 1`: TOML does not say
			// whether a dotted key may add to a table a header made on
			// its way. JP's toml crate allows it, go-toml does not; no
			// policy turns on it, so refuse it (fail closed) and say how
			// to write it unambiguously.
			return 0, b.errAt(kp.off, "key %q names a table that a [header] below it created (at %s); TOML readers disagree whether a dotted key may add to it, so jp-policy refuses it: write the key under a [header] for that table instead", kp.name, existing.Pos)
		default:
			return 0, b.errAt(kp.off, "key %q is already defined", kp.name)
		}
	}
	last := parts[len(parts)-1]
	if _, dup := t.Fields[last.name]; dup {
		return 0, b.errAt(last.off, "key %q is already defined", last.name)
	}
	v, end, err := b.value(e.Value(), b.valueStart(last.end))
	if err != nil {
		return 0, err
	}
	v.KeyPos = b.li.span(last.off, last.end)
	t.set(last.name, v)
	return end, nil
}

// valueStart finds the first byte of a value after its key: past blanks,
// the `=` and more blanks. Arrays carry no range in go-toml's AST, so this
// is how they get a position.
func (b *builder) valueStart(keyEnd int) int {
	i := keyEnd
	for i < len(b.data) && (b.data[i] == ' ' || b.data[i] == '\t') {
		i++
	}
	if i < len(b.data) && b.data[i] == '=' {
		i++
	}
	for i < len(b.data) && (b.data[i] == ' ' || b.data[i] == '\t') {
		i++
	}
	return i
}

// value converts an AST value and returns it with the offset just past
// its last byte, so its Pos spans exactly what was written. hint is the
// value's offset when the AST does not know it (arrays), or -1.
func (b *builder) value(v *unstable.Node, hint int) (*Node, int, error) {
	off := int(v.Raw.Offset)
	if v.Kind == unstable.Array {
		off = hint
	}
	end := off + int(v.Raw.Length)
	n := &Node{}
	switch v.Kind {
	case unstable.String:
		n.Kind, n.Str = String, string(v.Data)
	case unstable.Bool:
		n.Kind, n.Bool = Bool, string(v.Data) == "true"
	case unstable.Integer:
		i, err := strconv.ParseInt(string(v.Data), 0, 64)
		if err != nil || leadingZero(v.Data) {
			return nil, 0, b.errAt(off, "invalid integer %q", v.Data)
		}
		n.Kind, n.Int = Integer, i
	case unstable.Float:
		text := strings.ReplaceAll(string(v.Data), "_", "")
		if text == "+nan" || text == "-nan" {
			// TOML allows a signed nan; strconv does not.
			text = "nan"
		}
		f, err := strconv.ParseFloat(text, 64)
		if err != nil || leadingZero(v.Data) {
			return nil, 0, b.errAt(off, "invalid float %q", v.Data)
		}
		n.Kind, n.Float = Float, f
	case unstable.LocalDate, unstable.LocalTime, unstable.LocalDateTime, unstable.DateTime:
		// The AST only checks a date's shape; go-toml's decoder checks
		// its ranges. Dates are rare in config, so the cost is fine.
		var probe struct{ V any }
		if err := toml.Unmarshal(append([]byte("V = "), v.Data...), &probe); err != nil {
			return nil, 0, b.errAt(off, "invalid date or time %q", v.Data)
		}
		n.Kind, n.Str = DateTime, string(v.Data)
	case unstable.Array:
		n.Kind = Array
		last := off + 1 // just past the `[`
		it := v.Children()
		for it.Next() {
			c := it.Node()
			if c.Kind == unstable.Comment {
				continue
			}
			h := -1
			if c.Kind == unstable.Array {
				// Arrays carry no range: a nested one starts at the first
				// `[` after the previous element.
				h = b.skipBlank(last)
			}
			item, iend, err := b.value(c, h)
			if err != nil {
				return nil, 0, err
			}
			n.Items = append(n.Items, item)
			last = iend
		}
		end = b.closing(last, ']')
	case unstable.InlineTable:
		n.Kind, n.origin = Table, originInline
		last := off + 1 // just past the `{`
		it := v.Children()
		for it.Next() {
			c := it.Node()
			if c.Kind != unstable.KeyValue {
				continue
			}
			// Keys inside an inline table may be dotted; those tables are
			// frozen with it, but its own later dotted keys may fill them.
			kend, err := b.keyValue(n, c, originInlineDotted)
			if err != nil {
				return nil, 0, err
			}
			last = kend
		}
		end = b.closing(last, '}')
	default:
		return nil, 0, b.errAt(off, "unsupported value")
	}
	n.Pos = b.li.span(off, end)
	return n, end, nil
}

// skipBlank returns the first offset at or after from that is not a
// blank, newline, comma or comment.
func (b *builder) skipBlank(from int) int {
	i := from
	for i < len(b.data) {
		switch b.data[i] {
		case ' ', '\t', '\r', '\n', ',':
			i++
		case '#':
			for i < len(b.data) && b.data[i] != '\n' {
				i++
			}
		default:
			return i
		}
	}
	return i
}

// closing returns the offset just past the bracket that closes an array
// or inline table whose last element ends at from: past blanks, newlines,
// commas and comments. The document has parsed, so the bracket is there;
// if it is not, the span ends at from rather than guessing.
func (b *builder) closing(from int, bracket byte) int {
	if i := b.skipBlank(from); i < len(b.data) && b.data[i] == bracket {
		return i + 1
	}
	return from
}

// leadingZero reports a decimal number written with a leading zero
// ("012", "-01.5"), which TOML forbids and Go would read as octal.
func leadingZero(b []byte) bool {
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		b = b[1:]
	}
	return len(b) > 1 && b[0] == '0' && b[1] >= '0' && b[1] <= '9'
}
