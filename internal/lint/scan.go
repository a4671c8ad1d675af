package lint

import "strings"

// lineInfo is what suppression needs to know about one source line. It
// is computed by a small TOML lexer that understands strings (so a `#`,
// `[` or `]` inside one is not mistaken for syntax) but not values.
type lineInfo struct {
	text        string
	blank       bool
	onlyComment bool // nothing but a comment (and space) on the line
	comment     int  // byte offset of the comment's '#', -1 if none
	header      bool // a `[table]` or `[[array]]` header line
	indent      int
	depthBefore int // bracket depth of values when the line starts
	depthAfter  int
}

// scanLines splits src into lines and lexes them. It never fails: an
// unterminated string simply runs to the end of the file, as it would for
// the TOML parser (which reports it as JP001).
func scanLines(src []byte) []lineInfo {
	text := strings.ReplaceAll(string(src), "\r\n", "\n")
	raw := strings.Split(text, "\n")
	out := make([]lineInfo, len(raw))
	depth := 0
	inMulti := "" // `"""` or `'''` while inside a multi-line string
	for i, s := range raw {
		li := lineInfo{text: s, comment: -1, depthBefore: depth}
		trim := strings.TrimLeft(s, " \t")
		li.indent = len(s) - len(trim)
		if inMulti == "" {
			li.blank = strings.TrimSpace(s) == ""
			li.onlyComment = strings.HasPrefix(trim, "#")
			li.header = depth == 0 && strings.HasPrefix(trim, "[")
		}
		for j := 0; j < len(s); j++ {
			c := s[j]
			if inMulti != "" {
				if c == inMulti[0] && strings.HasPrefix(s[j:], inMulti) {
					j += len(inMulti) - 1
					inMulti = ""
				} else if c == '\\' && inMulti == `"""` {
					j++
				}
				continue
			}
			switch {
			case c == '#':
				li.comment = j
				j = len(s)
			case (c == '"' || c == '\'') && j+2 < len(s) && s[j+1] == c && s[j+2] == c:
				inMulti = s[j : j+3]
				j += 2
			case c == '"':
				j = skipString(s, j, '"', true)
			case c == '\'':
				j = skipString(s, j, '\'', false)
			case li.header:
				// Brackets of a header are not value nesting.
			case c == '[' || c == '{':
				depth++
			case c == ']' || c == '}':
				if depth > 0 {
					depth--
				}
			}
		}
		li.depthAfter = depth
		out[i] = li
	}
	return out
}

// skipString returns the index of the closing quote of the string that
// opens at s[start], or the last index of s when it is not closed.
func skipString(s string, start int, q byte, escapes bool) int {
	for j := start + 1; j < len(s); j++ {
		if escapes && s[j] == '\\' {
			j++
			continue
		}
		if s[j] == q {
			return j
		}
	}
	return len(s) - 1
}
