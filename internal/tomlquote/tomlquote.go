// Package tomlquote writes TOML keys and strings that a TOML decoder
// reads back as the same text. Everything jp-policy writes into a config
// file, and every key it shows a user to paste into one, goes through it.
//
// Go's %q and strconv.Quote are not TOML: they write \x7f, \a and \v,
// which TOML rejects. Here a key is bare when it may be
// ([A-Za-z0-9_-]+) and otherwise a basic string; a basic string escapes
// '"', '\\' and every control character (\b \t \n \f \r by name, the rest
// as \uXXXX, the C1 controls and the line and paragraph separators too, so
// that a string printed to a terminal cannot drive it) and writes all
// other characters as they are.
//
// TOML documents are UTF-8 and have no escape for a byte, so a string
// that is not valid UTF-8 cannot be written. Each invalid byte becomes
// U+FFFD (as ranging over the string decodes it), so the output is always
// valid TOML; a caller that writes config must refuse such input first
// (mount names are checked when they are parsed).
package tomlquote

import "strings"

// Bare reports whether s may be written as a bare TOML key.
func Bare(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Key renders s as one TOML key: bare when Bare(s), else a basic string.
func Key(s string) string {
	if Bare(s) {
		return s
	}
	return String(s)
}

// String renders s as a TOML basic string.
func String(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029 {
				const hex = "0123456789ABCDEF"
				b.WriteString(`\u`)
				b.WriteByte(hex[r>>12&15])
				b.WriteByte(hex[r>>8&15])
				b.WriteByte(hex[r>>4&15])
				b.WriteByte(hex[r&15])
				continue
			}
			// An invalid byte decodes as utf8.RuneError and is written
			// as U+FFFD: valid UTF-8, as TOML requires.
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
