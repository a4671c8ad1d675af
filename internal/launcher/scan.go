package launcher

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// A compiled policy.json holds every tool's enforcement tables, origins
// and warnings; for JP's own workspace that is over half a megabyte, and
// encoding/json validates and walks all of it (tens of milliseconds) to
// decode the few fields the launcher needs. leanArtifactDecode instead
// skips over the values it does not need with a small scanner that only
// tracks strings and nesting, and hands the few values it needs (the
// header fields and the one tool) to encoding/json, which validates them.
//
// The skipped parts are not validated; they decide nothing. Anything the
// scanner cannot follow is an error, never a guess, and a tool that
// appears twice is refused rather than picked.

var errSyntax = errors.New("malformed JSON")

// structural marks the bytes the skipper must look at inside an object
// or array; everything else is skipped without a switch.
var structural = [256]bool{'"': true, '{': true, '}': true, '[': true, ']': true}

// jsonScanner walks a JSON document without decoding it.
type jsonScanner struct {
	b []byte
	i int
}

func (s *jsonScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *jsonScanner) expect(c byte) error {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != c {
		return fmt.Errorf("%w: expected %q at byte %d", errSyntax, c, s.i)
	}
	s.i++
	return nil
}

// peek returns the next non-space byte, 0 at the end.
func (s *jsonScanner) peek() byte {
	s.ws()
	if s.i >= len(s.b) {
		return 0
	}
	return s.b[s.i]
}

// str scans a string and returns its raw bytes, quotes included.
func (s *jsonScanner) str() ([]byte, error) {
	s.ws()
	start := s.i
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, fmt.Errorf("%w: expected a string at byte %d", errSyntax, s.i)
	}
	for s.i++; s.i < len(s.b); s.i++ {
		// Fast path over the bulk of a string: IndexByte is vectorised,
		// a scan for either byte is not.
		j := bytes.IndexByte(s.b[s.i:], '"')
		if j < 0 {
			break
		}
		if k := bytes.IndexByte(s.b[s.i:s.i+j], '\\'); k >= 0 {
			s.i += k + 1 // the escaped byte cannot end the string
			continue
		}
		s.i += j + 1
		return s.b[start:s.i], nil
	}
	return nil, fmt.Errorf("%w: unterminated string", errSyntax)
}

// key scans an object key and returns it decoded.
func (s *jsonScanner) key() (string, error) {
	raw, err := s.str()
	if err != nil {
		return "", err
	}
	// Invalid UTF-8 takes the slow path too: encoding/json replaces each
	// bad byte with U+FFFD, and tool names must match what it reads.
	if !strings.ContainsRune(string(raw), '\\') && utf8.Valid(raw) {
		return string(raw[1 : len(raw)-1]), nil
	}
	var k string
	if err := json.Unmarshal(raw, &k); err != nil {
		return "", fmt.Errorf("%w: %v", errSyntax, err)
	}
	return k, nil
}

// value skips one value and returns its raw bytes.
func (s *jsonScanner) value() ([]byte, error) {
	s.ws()
	start := s.i
	if s.i >= len(s.b) {
		return nil, fmt.Errorf("%w: expected a value at the end", errSyntax)
	}
	switch s.b[s.i] {
	case '"':
		return s.str()
	case '{', '[':
		depth := 0
		for ; s.i < len(s.b); s.i++ {
			if !structural[s.b[s.i]] {
				continue
			}
			switch s.b[s.i] {
			case '"':
				if _, err := s.str(); err != nil {
					return nil, err
				}
				s.i-- // the loop's increment steps past the closing quote
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.i++
					return s.b[start:s.i], nil
				}
			}
		}
		return nil, fmt.Errorf("%w: unterminated object or array", errSyntax)
	}
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			if s.i == start {
				return nil, fmt.Errorf("%w: expected a value at byte %d", errSyntax, s.i)
			}
			return s.b[start:s.i], nil
		}
		s.i++
	}
	if s.i == start {
		return nil, fmt.Errorf("%w: expected a value at byte %d", errSyntax, s.i)
	}
	return s.b[start:s.i], nil
}

// object calls f for every member of the object that starts next; f
// must consume the member's value.
func (s *jsonScanner) object(f func(key string) error) error {
	if err := s.expect('{'); err != nil {
		return err
	}
	if s.peek() == '}' {
		s.i++
		return nil
	}
	for {
		k, err := s.key()
		if err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		if err := f(k); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return fmt.Errorf("%w: expected ',' or '}' at byte %d", errSyntax, s.i)
		}
	}
}

// DuplicateToolError refuses an artifact that lists a tool twice: which
// entry a reader would pick is not something to leave to chance.
type DuplicateToolError struct{ Tool string }

func (e *DuplicateToolError) Error() string {
	return fmt.Sprintf("the artifact lists tool %q twice; run `jp-policy compile`", e.Tool)
}

// leanArtifactDecode fills a with policy.json's header and the one tool,
// and returns every tool name (for the not-found message) and whether the
// tool was there. a.Tools holds at most that tool.
func leanArtifactDecode(b []byte, tool string, a *leanArtifact) (names []string, found bool, err error) {
	s := &jsonScanner{b: b}
	var (
		toolRaw   []byte
		toolsSeen bool
	)
	err = s.object(func(k string) error {
		// Keys match case-insensitively, as encoding/json (and so
		// artifact.Read) matches them.
		k = canonicalKey(k)
		if k == "tools" {
			if toolsSeen {
				return fmt.Errorf("%w: two \"tools\" members", errSyntax)
			}
			toolsSeen = true
			// Walked in place: scanning the whole value first and then
			// its members would read the biggest part of the file twice.
			return s.object(func(name string) error {
				v, err := s.value()
				if err != nil {
					return err
				}
				if name == tool {
					if found {
						return &DuplicateToolError{Tool: tool}
					}
					toolRaw, found = v, true
				}
				names = append(names, name)
				return nil
			})
		}
		raw, err := s.value()
		if err != nil {
			return err
		}
		var dst any
		switch k {
		case "format":
			dst = &a.Format
		case "root":
			dst = &a.Root
		case "digest":
			dst = &a.Digest
		case "inputs":
			a.Inputs = nil // a repeated key replaces, as in encoding/json
			dst = &a.Inputs
		default:
			return nil
		}
		return json.Unmarshal(raw, dst)
	})
	if err != nil {
		return nil, false, err
	}
	if s.peek() != 0 {
		return nil, false, fmt.Errorf("%w: data after the top-level object", errSyntax)
	}
	if found {
		var t leanTool
		if err := json.Unmarshal(toolRaw, &t); err != nil {
			return nil, false, err
		}
		a.Tools = map[string]leanTool{tool: t}
	}
	return names, found, nil
}

// canonicalKey maps a top-level key to the field name encoding/json
// would match it to.
func canonicalKey(k string) string {
	for _, f := range []string{"format", "root", "digest", "inputs", "tools"} {
		if strings.EqualFold(k, f) {
			return f
		}
	}
	return k
}
