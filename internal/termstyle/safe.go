package termstyle

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Safe is the one escaping of text that came from config (a tool name, a
// rule path, a host) before it reaches a terminal or a report: every
// character that is not printable, or that changes how the rest of the
// line is shown, is written as a Go escape (\n, \x1b, \u202e), so a
// value can neither send terminal control sequences (a window title, a
// screen clear), nor start a line of its own, nor reorder the text
// around it. Invalid UTF-8 bytes are written as \xNN. Printable text,
// backslashes included, is left as it is, so an ordinary path reads as
// typed.
func Safe(s string) string {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if needsEscape(r, n) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[i])|0x100, 16)[1:])
		case needsEscape(r, n):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Code is Safe(s) as an inline code span, `s`, for text that may be read
// as Markdown (a pull request comment, a job summary): a backtick inside
// is written \x60, so the value cannot close the span and write markup
// after it.
func Code(s string) string {
	return "`" + Inline(s) + "`"
}

// Inline is Safe(s) with backticks written \x60: a value from config
// shown outside a code span in text that may be read as Markdown, where
// a backtick would open one.
func Inline(s string) string {
	return strings.ReplaceAll(Safe(s), "`", `\x60`)
}

// needsEscape reports whether the rune r (n bytes) is written escaped:
// an invalid byte, a control character (C0, DEL, C1), a line or paragraph
// separator, or a formatting character (bidirectional overrides and
// isolates, zero-width characters).
func needsEscape(r rune, n int) bool {
	if r == utf8.RuneError && n == 1 {
		return true
	}
	if r < utf8.RuneSelf {
		return r < 0x20 || r == 0x7f
	}
	return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

// SafeLines is Safe for a message jp-policy composed over several lines
// (an error that lists a diff): each line is escaped and the line breaks
// between them are kept. Values from config inside it must have been
// escaped with Safe already, or they could start a line of their own;
// this keeps any that were missed from sending control sequences.
func SafeLines(s string) string {
	if !strings.Contains(s, "\n") {
		return Safe(s)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Safe(l)
	}
	return strings.Join(lines, "\n")
}
