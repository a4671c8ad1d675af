package sbpl

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// node is one parsed S-expression: an atom, a string (regex set for a
// #"..." regular-expression literal) or a list.
type node struct {
	atom   string
	str    *string
	regex  bool
	list   []node
	isList bool
}

// readAll parses every top-level form of an SBPL profile the way
// sandbox-exec's TinyScheme reader does, for exactly as much Scheme as the
// emitter writes: lists, atoms, ';' comments, strings with \\, \", \n,
// \t and \xHH escapes, and #"..." regular-expression literals without
// escapes. Anything else is an error (another escape, a raw line break
// in a string, an unbalanced parenthesis, a stray '#'), so a profile that
// needs more than this is suspect.
func readAll(src []byte) ([]node, error) {
	r := &reader{src: src}
	var out []node
	for {
		r.skip()
		if r.pos >= len(r.src) {
			return out, nil
		}
		n, err := r.read()
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
}

type reader struct {
	src []byte
	pos int
}

func (r *reader) skip() {
	for r.pos < len(r.src) {
		switch c := r.src[r.pos]; {
		case c == ';':
			for r.pos < len(r.src) && r.src[r.pos] != '\n' {
				r.pos++
			}
		case c == ' ' || c == '\n' || c == '\t' || c == '\r':
			r.pos++
		default:
			return
		}
	}
}

func (r *reader) read() (node, error) {
	r.skip()
	if r.pos >= len(r.src) {
		return node{}, errors.New("unexpected end of input")
	}
	switch c := r.src[r.pos]; c {
	case '(':
		r.pos++
		n := node{isList: true}
		for {
			r.skip()
			if r.pos >= len(r.src) {
				return node{}, errors.New("unclosed (")
			}
			if r.src[r.pos] == ')' {
				r.pos++
				return n, nil
			}
			child, err := r.read()
			if err != nil {
				return node{}, err
			}
			n.list = append(n.list, child)
		}
	case ')':
		return node{}, fmt.Errorf("unexpected ) at byte %d", r.pos)
	case '"':
		r.pos++
		var s []byte
		for {
			if r.pos >= len(r.src) {
				return node{}, errors.New("unterminated string")
			}
			c := r.src[r.pos]
			r.pos++
			switch c {
			case '"':
				str := string(s)
				return node{str: &str}, nil
			case '\n':
				return node{}, errors.New("raw newline in string")
			case '\\':
				if r.pos >= len(r.src) {
					return node{}, errors.New("dangling escape")
				}
				e := r.src[r.pos]
				r.pos++
				switch e {
				case '\\', '"':
					s = append(s, e)
				case 'n':
					s = append(s, '\n')
				case 't':
					s = append(s, '\t')
				case 'x':
					if r.pos+2 > len(r.src) {
						return node{}, errors.New("short \\x escape")
					}
					v, err := strconv.ParseUint(string(r.src[r.pos:r.pos+2]), 16, 8)
					if err != nil {
						return node{}, fmt.Errorf("bad \\x escape: %v", err)
					}
					s = append(s, byte(v))
					r.pos += 2
				default:
					return node{}, fmt.Errorf("unknown escape \\%c", e)
				}
			default:
				s = append(s, c)
			}
		}
	case '#':
		if r.pos+1 >= len(r.src) || r.src[r.pos+1] != '"' {
			return node{}, fmt.Errorf("unexpected # at byte %d", r.pos)
		}
		start := r.pos + 2
		end := bytes.IndexByte(r.src[start:], '"')
		if end < 0 {
			return node{}, errors.New("unterminated regular expression")
		}
		re := string(r.src[start : start+end])
		if strings.ContainsAny(re, "\\\n") {
			return node{}, fmt.Errorf("regular expression %q has an escape or a line break", re)
		}
		r.pos = start + end + 1
		return node{str: &re, regex: true}, nil
	default:
		start := r.pos
		for r.pos < len(r.src) {
			c := r.src[r.pos]
			if c == '(' || c == ')' || c == '"' || c == ';' || c == '#' || c == ' ' || c == '\n' || c == '\t' || c == '\r' {
				break
			}
			r.pos++
		}
		return node{atom: string(r.src[start:r.pos])}, nil
	}
}

// strings collects every string literal in the tree.
func (n node) strings() []string {
	if n.str != nil {
		return []string{*n.str}
	}
	var out []string
	for _, c := range n.list {
		out = append(out, c.strings()...)
	}
	return out
}
