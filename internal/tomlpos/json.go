package tomlpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/jp-policy/jp-policy/internal/diag"
)

// maxJSONDepth bounds nesting: the root object is depth 0. JP reads JSON
// with serde_json, whose recursion limit refuses a 128th nested array or
// object (a depth of 127 here), so a deeper document is one JP would not
// load; it also keeps a hostile file from exhausting the stack.
const maxJSONDepth = 126

// ParseJSON parses a JSON document whose top level must be an object.
// Duplicate keys are rejected: JSON leaves their meaning open, and a
// policy file must not be ambiguous.
//
// Leading UTF-8 byte order marks are skipped, as JP's loader skips them.
// Where encoding/json is more lenient than serde_json, JP's reader, the
// document is refused rather than read differently: invalid UTF-8 (JP
// reads a file into a Rust String, which refuses it; encoding/json would
// turn it into U+FFFD), an unpaired UTF-16 surrogate escape such as
// "\ud800" (serde_json: "lone leading surrogate in hex escape";
// encoding/json: U+FFFD), and nesting past serde_json's limit.
func ParseJSON(file string, data []byte) (root *Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			root, err = nil, &SyntaxError{Pos: diag.Position{File: file}, Message: fmt.Sprintf("cannot parse: %v", r)}
		}
	}()
	// Leading byte order marks are skipped, as JP's loader skips them;
	// offsets stay those of data.
	n := SkipBOMs(data)
	p := &jsonParser{li: newLineIndex(file, data), data: data[n:], dec: json.NewDecoder(bytes.NewReader(data[n:]))}
	p.li.base = n
	if !utf8.Valid(p.data) {
		return nil, p.errAt(invalidUTF8(p.data), "invalid UTF-8: JP refuses a config file that is not UTF-8; save it as UTF-8")
	}
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
		if err := p.checkSurrogates(key, koff, kend); err != nil {
			return nil, err
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
		if err := p.checkSurrogates(t, off, int(p.dec.InputOffset())); err != nil {
			return nil, err
		}
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

// checkSurrogates refuses a string whose source [off, end) holds a \u
// escape of a UTF-16 surrogate that is not the first half of a pair
// followed by its second half. encoding/json decodes such an escape to
// U+FFFD; serde_json refuses the document. The file is valid UTF-8, so a
// decoded U+FFFD comes from the file's own text or from such an escape:
// strings without one, nearly all, cost one scan.
func (p *jsonParser) checkSurrogates(s string, off, end int) error {
	if !strings.ContainsRune(s, utf8.RuneError) {
		return nil
	}
	raw := p.data[off:min(end, len(p.data))]
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		i++
		if i >= len(raw) || raw[i] != 'u' {
			continue // \\, \" and the others: one character, skipped
		}
		r, ok := hex4(raw[i+1:])
		if !ok || r < 0xD800 || r > 0xDFFF {
			continue
		}
		if r <= 0xDBFF && i+6 < len(raw) && raw[i+5] == '\\' && raw[i+6] == 'u' {
			if r2, ok := hex4(raw[i+7:]); ok && r2 >= 0xDC00 && r2 <= 0xDFFF {
				i += 10 // the pair, past its second \uXXXX
				continue
			}
		}
		return p.errAt(off+i-1, "unpaired UTF-16 surrogate escape \\%s: JP (serde_json) refuses it; write the character itself or a complete surrogate pair", raw[i:min(i+5, len(raw))])
	}
	return nil
}

// hex4 decodes the four hex digits at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}

// invalidUTF8 is the offset of the first byte of data that is not valid
// UTF-8.
func invalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(data)
}
