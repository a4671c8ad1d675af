package sbpl

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Quote renders s as an SBPL (TinyScheme) string literal. Backslash and
// double quote are escaped; control bytes and bytes that are not valid
// UTF-8 become \xHH escapes; valid non-ASCII UTF-8 is kept as is, because
// the sandbox compiler compares path bytes and macOS paths are UTF-8.
func Quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' || c == '"':
			b.WriteByte('\\')
			b.WriteByte(c)
			i++
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
			i++
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			i++
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n <= 1 {
				fmt.Fprintf(&b, `\x%02x`, c)
				i++
				continue
			}
			b.WriteString(s[i : i+n])
			i += n
		}
	}
	b.WriteByte('"')
	return b.String()
}

// comment makes s safe inside a ';' comment: one line, printable.
func comment(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return '?'
		}
		return r
	}, s)
}
