package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/termstyle"
)

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[1;31m"
	ansiYellow = "\x1b[1;33m"
	ansiBlue   = "\x1b[1;34m"
	ansiCyan   = "\x1b[36m"
)

// Text writes each finding as
//
//	file:line:col: severity: message [ID]
//	   12 | external = true
//	      | ^^^^^^^^
//	  help: how to fix it
//	  note: overrides ~/.config/jp/config.toml:4:1
//
// followed by a one-line summary when there was at least one finding.
func Text(w io.Writer, ds []diag.Diagnostic, o Options) error {
	bw := bufio.NewWriter(w)
	lines := map[string][]int{}
	paint := func(code, s string) string {
		if !o.Color {
			return s
		}
		return code + s + ansiReset
	}
	var errs, warns int
	for _, d := range ds {
		switch d.Severity {
		case diag.Error:
			errs++
		case diag.Warning:
			warns++
		}
		sevColor := ansiCyan
		switch d.Severity {
		case diag.Error:
			sevColor = ansiRed
		case diag.Warning:
			sevColor = ansiYellow
		}
		head := o.posString(d.Pos) + ": " + paint(sevColor, d.Severity.String()) + ": " + paint(ansiBold, termstyle.Safe(d.Message))
		if d.Rule != "" {
			head += " [" + d.Rule + "]"
		}
		fmt.Fprintln(bw, head)
		if src, ok := sourceLine(lines, o.Files, d.Pos); ok {
			num := fmt.Sprint(d.Pos.Line)
			gutter := strings.Repeat(" ", len(num))
			shown, pad, width := excerpt(src, d.Pos)
			fmt.Fprintf(bw, " %s %s %s\n", paint(ansiBlue, num), paint(ansiBlue, "|"), strings.TrimRight(shown, " \t"))
			if d.Pos.Col > 0 {
				fmt.Fprintf(bw, " %s %s %s%s\n", gutter, paint(ansiBlue, "|"), pad, paint(sevColor, strings.Repeat("^", width)))
			}
		}
		if d.Help != "" {
			fmt.Fprintf(bw, "  %s %s\n", paint(ansiCyan, "help:"), termstyle.Safe(d.Help))
		}
		for _, r := range d.Related {
			fmt.Fprintf(bw, "  %s %s\n", paint(ansiCyan, "note:"), relatedText(o, r))
		}
	}
	if len(ds) > 0 {
		fmt.Fprintf(bw, "%s, %s\n", plural(errs, "error"), plural(warns, "warning"))
	}
	return bw.Flush()
}

func relatedText(o Options, r diag.Related) string {
	msg := termstyle.Safe(r.Message)
	if r.Pos.IsZero() {
		return msg
	}
	if r.Message == "" {
		return o.posString(r.Pos)
	}
	return msg + " " + o.posString(r.Pos)
}

// excerptBefore and excerptWidth bound the source excerpt of a finding:
// at most excerptBefore characters before its column, and excerptWidth
// in all, so a finding on a megabyte-long line (minified JSON) prints a
// line, not the file.
const (
	excerptBefore = 100
	excerptWidth  = 200
)

// excerpt returns what is shown of the source line src for a finding at
// p: a window of the line around the column, cut with "…" at either
// end, every character as termstyle.Safe shows it (tabs kept, so the
// caret lines up in any tab width), with the padding that puts the caret
// under the column and the number of carets.
func excerpt(src string, p diag.Position) (line, pad string, width int) {
	col := max(p.Col, 1) - 1 // in characters
	n := utf8.RuneCountInString(src)
	start := 0
	if n > excerptWidth && col > excerptBefore {
		start = max(0, min(col-excerptBefore, n-excerptWidth))
	}
	end := min(n, start+excerptWidth)
	span := 1
	switch {
	case !p.HasEnd():
	case p.EndLine == p.Line:
		span = p.EndCol - p.Col
	default:
		span = n - col
	}
	span = max(1, min(span, max(n-col, 1)))
	var b, padB strings.Builder
	if start > 0 {
		b.WriteString("…")
		padB.WriteByte(' ')
	}
	i := 0
	for _, r := range src {
		if i >= end {
			break
		}
		if i >= start {
			shown := string(r)
			if r != '\t' {
				shown = termstyle.Safe(shown)
			}
			b.WriteString(shown)
			w := utf8.RuneCountInString(shown)
			switch {
			case i < col && r == '\t':
				padB.WriteByte('\t')
			case i < col:
				padB.WriteString(strings.Repeat(" ", w))
			case i < col+span:
				width += w
			}
		}
		i++
	}
	if end < n {
		b.WriteString("…")
	}
	return b.String(), padB.String(), max(1, width)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// sourceLine returns line p.Line of p.File (a CRLF ending read as LF),
// indexing each file's line starts once. Only the lines shown are copied:
// a 20-tool lint used to copy and split a whole file for a few lines.
func sourceLine(cache map[string][]int, files map[string][]byte, p diag.Position) (string, bool) {
	if p.Line <= 0 || p.File == "" {
		return "", false
	}
	b, found := files[p.File]
	if !found {
		return "", false
	}
	starts, ok := cache[p.File]
	if !ok {
		starts = make([]int, 1, bytes.Count(b, []byte{'\n'})+1)
		for i, c := range b {
			if c == '\n' {
				starts = append(starts, i+1)
			}
		}
		cache[p.File] = starts
	}
	if p.Line > len(starts) {
		return "", false
	}
	start, end := starts[p.Line-1], len(b)
	if p.Line < len(starts) {
		end = starts[p.Line] - 1 // the '\n'
		if end > start && b[end-1] == '\r' {
			end--
		}
	}
	return string(b[start:end]), true
}
