package termstyle

import (
	"strings"
	"unicode/utf8"
)

// hang is how much further than its first line a wrapped line's
// continuation is indented, so the eye sees where one entry ends.
const hang = 4

// Wrap breaks every line of text longer than width columns at spaces.
// The first part keeps the line as written (its indent and any runs of
// spaces that align columns); each continuation is indented by the
// line's own indent plus four. A word longer than the room left (a long
// path) is never split: it overflows, because a path cut in two can no
// longer be copied. Columns are counted in runes; text holds no escape
// sequences (wrap before colouring).
func Wrap(text string, width int) string {
	if width <= 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text) + len(text)/16)
	for line := range strings.SplitAfterSeq(text, "\n") {
		body, nl := strings.CutSuffix(line, "\n")
		wrapLine(&b, body, width)
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func wrapLine(b *strings.Builder, line string, width int) {
	if utf8.RuneCountInString(line) <= width {
		b.WriteString(line)
		return
	}
	indent := len(line) - len(strings.TrimLeft(line, " "))
	// A continuation keeps at least half the width for text: deeper
	// indents are not hung further.
	cont := indent + hang
	if cont > width/2 {
		cont = min(indent, width/2)
	}
	first := true
	for {
		limit := width
		if !first {
			line = strings.Repeat(" ", cont) + strings.TrimLeft(line, " ")
		}
		if utf8.RuneCountInString(line) <= limit {
			b.WriteString(line)
			return
		}
		start := indent
		if !first {
			start = cont
		}
		cut := breakAt(line, start, limit)
		if cut < 0 {
			b.WriteString(line)
			return
		}
		b.WriteString(strings.TrimRight(line[:cut], " "))
		b.WriteByte('\n')
		line = line[cut:]
		if strings.TrimSpace(line) == "" {
			return
		}
		first = false
	}
}

// breakAt returns the byte offset of the last space in line after byte
// offset start whose text before it fits in limit columns; failing that,
// the first space after start (the word overflows); -1 when there is no
// space to break at.
func breakAt(line string, start, limit int) int {
	last, cols := -1, 0
	for i, r := range line {
		if cols > limit {
			break
		}
		if r == ' ' && i > start && cols <= limit {
			last = i
		}
		cols++
	}
	if last > 0 && strings.TrimSpace(line[start:last]) != "" {
		return last
	}
	for i := start; i < len(line); i++ {
		if line[i] == ' ' && strings.TrimSpace(line[start:i]) != "" {
			return i
		}
	}
	return -1
}
