package configdelta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// UnsetPath is one parsed `outcome.unset` entry (RFD 070 `unsets`): a
// dotted field path, and for a vec-element removal the element's claim
// identity.
type UnsetPath struct {
	// Segments are the dotted path's segments, each non-empty.
	Segments []string
	// Element is the identity of the vec element to remove; nil unsets
	// the whole field.
	Element *string
}

// Path is the dotted field path without the element suffix.
func (u UnsetPath) Path() string { return strings.Join(u.Segments, ".") }

// String is the canonical spelling: the dotted path, then for an element
// `["identity"]` with the identity as a JSON string. ParseUnsetPath reads
// it back to an equal value.
func (u UnsetPath) String() string {
	s := u.Path()
	if u.Element != nil {
		s += "[" + jsonString(*u.Element) + "]"
	}
	return s
}

func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// Characters a path segment may not hold: the separators of the syntax,
// '*' (an unset names concrete fields; wildcards belong to rules) and
// whitespace or control characters, which no JP field or sane map key
// contains and which would make the path ambiguous in messages.
func badSegmentRune(r rune) bool {
	switch r {
	case '.', '[', ']', '"', '*':
		return true
	}
	return r <= ' ' || r == 0x7f || r == utf8.RuneError
}

// ParseUnsetPath parses RFD 070's unset syntax:
//
//	unset   = path [ "[" json-string "]" ]
//	path    = segment *( "." segment )
//
// The element identity is a JSON string literal (RFD 078 writes
// `conversation.attachments["stale-file.md"]`); it must be non-empty and
// nothing may follow the closing bracket.
func ParseUnsetPath(s string) (UnsetPath, error) {
	if s == "" {
		return UnsetPath{}, errors.New("empty unset path")
	}
	if !utf8.ValidString(s) {
		return UnsetPath{}, errors.New("unset path is not valid UTF-8")
	}
	base, elem, hasElem := s, "", false
	if i := strings.IndexByte(s, '['); i >= 0 {
		if !strings.HasSuffix(s, "]") {
			return UnsetPath{}, fmt.Errorf("%q: a vec-element suffix must end the path, as path[\"identity\"]", s)
		}
		base, elem, hasElem = s[:i], s[i+1:len(s)-1], true
	}
	var u UnsetPath
	for seg := range strings.SplitSeq(base, ".") {
		if seg == "" {
			return UnsetPath{}, fmt.Errorf("%q: empty path segment", s)
		}
		if i := strings.IndexFunc(seg, badSegmentRune); i >= 0 {
			r, _ := utf8.DecodeRuneInString(seg[i:])
			return UnsetPath{}, fmt.Errorf("%q: segment %q may not contain %q", s, seg, r)
		}
		u.Segments = append(u.Segments, seg)
	}
	if !hasElem {
		return u, nil
	}
	if len(elem) < 2 || elem[0] != '"' || elem[len(elem)-1] != '"' {
		return UnsetPath{}, fmt.Errorf("%q: the element identity must be a JSON string, as path[\"identity\"]", s)
	}
	var id string
	// Unmarshal rejects anything after the literal, so `["a"]["b"]`
	// cannot smuggle a second suffix in.
	if err := json.Unmarshal([]byte(elem), &id); err != nil {
		return UnsetPath{}, fmt.Errorf("%q: the element identity is not one JSON string literal", s)
	}
	if id == "" {
		return UnsetPath{}, fmt.Errorf("%q: the element identity is empty", s)
	}
	u.Element = &id
	return u, nil
}
