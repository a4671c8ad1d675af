package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/jp-policy/jp-policy/internal/diag"
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
		head := o.posString(d.Pos) + ": " + paint(sevColor, d.Severity.String()) + ": " + paint(ansiBold, d.Message)
		if d.Rule != "" {
			head += " [" + d.Rule + "]"
		}
		fmt.Fprintln(bw, head)
		if src, ok := sourceLine(lines, o.Files, d.Pos); ok {
			num := fmt.Sprint(d.Pos.Line)
			gutter := strings.Repeat(" ", len(num))
			fmt.Fprintf(bw, " %s %s %s\n", paint(ansiBlue, num), paint(ansiBlue, "|"), strings.TrimRight(src, " \t"))
			if d.Pos.Col > 0 {
				pad, width := caret(src, d.Pos)
				fmt.Fprintf(bw, " %s %s %s%s\n", gutter, paint(ansiBlue, "|"), pad, paint(sevColor, strings.Repeat("^", width)))
			}
		}
		if d.Help != "" {
			fmt.Fprintf(bw, "  %s %s\n", paint(ansiCyan, "help:"), d.Help)
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
	if r.Pos.IsZero() {
		return r.Message
	}
	if r.Message == "" {
		return o.posString(r.Pos)
	}
	return r.Message + " " + o.posString(r.Pos)
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

// caret returns the padding that puts a caret under column p.Col (1-based,
// counted in characters) and how many carets to draw: the span the parser
// recorded (to the end of the line when it runs over several), or one
// character when the finding has no end. Tabs in the padding are kept so
// the caret lines up in any tab width.
func caret(src string, p diag.Position) (string, int) {
	var pad strings.Builder
	n := 1
	for _, r := range src {
		if n >= p.Col {
			break
		}
		if r == '\t' {
			pad.WriteByte('\t')
		} else {
			pad.WriteByte(' ')
		}
		n++
	}
	rest := utf8.RuneCountInString(src) - (p.Col - 1)
	width := 1
	switch {
	case !p.HasEnd():
	case p.EndLine == p.Line:
		width = p.EndCol - p.Col
	default:
		width = rest
	}
	return pad.String(), max(1, min(width, max(rest, 1)))
}
