package tomlpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/jp-policy/jp-policy/internal/diag"
)

// maxJSONDepth bounds nesting so a hostile file cannot exhaust the stack.
const maxJSONDepth = 1000

// ParseJSON parses a JSON document whose top level must be an object.
// Duplicate keys are rejected: JSON leaves their meaning open, and a
// policy file must not be ambiguous.
func ParseJSON(file string, data []byte) (root *Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			root, err = nil, &SyntaxError{Pos: diag.Position{File: file}, Message: fmt.Sprintf("cannot parse: %v", r)}
		}
	}()
	p := &jsonParser{li: newLineIndex(file, data), data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	p.dec.UseNumber()
	start := p.next()
	tok, err := p.token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, p.errAt(start, "a JSON config file must hold an object")
	}
	root, err = p.object(start, 0)
	if err != nil {
		return nil, err
	}
	if _, err := p.dec.Token(); err != io.EOF {
		return nil, p.errAt(p.next(), "unexpected data after the top-level object")
	}
	return root, nil
}

type jsonParser struct {
	li   *lineIndex
	data []byte
	dec  *json.Decoder
}

func (p *jsonParser) errAt(off int, format string, args ...any) error {
	return &SyntaxError{Pos: p.li.pos(off), Message: fmt.Sprintf(format, args...)}
}

// next returns the offset where the next token starts: the decoder's
// offset is the end of the previous token, followed by blanks and the
// separators that Token() consumes silently.
func (p *jsonParser) next() int {
	i := int(p.dec.InputOffset())
	for i < len(p.data) {
		switch p.data[i] {
		case ' ', '\t', '\n', '\r', ',', ':':
			i++
		default:
			return i
		}
	}
	return i
}

func (p *jsonParser) token() (json.Token, error) {
	off := p.next()
	tok, err := p.dec.Token()
	if err != nil {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			// The decoder's offset is sometimes just before the token it
			// rejects (a `}` after a `,`); never point before it.
			return nil, p.errAt(max(off, int(se.Offset)-1), "%s", se.Error())
		case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
			return nil, p.errAt(len(p.data), "unexpected end of JSON input")
		}
		return nil, p.errAt(off, "%s", strings.TrimPrefix(err.Error(), "json: "))
	}
	return tok, nil
}

func (p *jsonParser) object(start, depth int) (*Node, error) {
	if depth > maxJSONDepth {
		return nil, p.errAt(start, "nesting deeper than %d levels", maxJSONDepth)
	}
	n := &Node{Kind: Table, Pos: p.li.pos(start), origin: originInline}
	for p.dec.More() {
		koff := p.next()
		tok, err := p.token()
		if err != nil {
			return nil, err
		}
		kend := int(p.dec.InputOffset())
		key, ok := tok.(string)
		if !ok {
			return nil, p.errAt(koff, "expected an object key")
		}
		if _, dup := n.Fields[key]; dup {
			return nil, p.errAt(koff, "key %q is defined twice", key)
		}
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		v.KeyPos = p.li.span(koff, kend)
		n.set(key, v)
	}
	if _, err := p.token(); err != nil { // the closing '}'
		return nil, err
	}
	n.Pos = p.li.span(start, int(p.dec.InputOffset()))
	return n, nil
}

func (p *jsonParser) value(depth int) (*Node, error) {
	off := p.next()
	tok, err := p.token()
	if err != nil {
		return nil, err
	}
	pos := p.li.span(off, int(p.dec.InputOffset()))
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			return p.object(off, depth+1)
		case '[':
			if depth+1 > maxJSONDepth {
				return nil, p.errAt(off, "nesting deeper than %d levels", maxJSONDepth)
			}
			n := &Node{Kind: Array}
			for p.dec.More() {
				item, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				n.Items = append(n.Items, item)
			}
			if _, err := p.token(); err != nil {
				return nil, err
			}
			n.Pos = p.li.span(off, int(p.dec.InputOffset()))
			return n, nil
		}
		return nil, p.errAt(off, "unexpected %q", string(t))
	case string:
		return &Node{Kind: String, Pos: pos, Str: t}, nil
	case bool:
		return &Node{Kind: Bool, Pos: pos, Bool: t}, nil
	case nil:
		return &Node{Kind: Null, Pos: pos}, nil
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return &Node{Kind: Integer, Pos: pos, Int: i}, nil
		}
		f, err := t.Float64()
		if err != nil {
			return nil, p.errAt(off, "number %s is out of range", t)
		}
		return &Node{Kind: Float, Pos: pos, Float: f}, nil
	}
	return nil, p.errAt(off, "unexpected token")
}
