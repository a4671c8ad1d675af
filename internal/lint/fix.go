package lint

import (
	"bytes"
	"slices"
	"strings"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/tomlpos"
)

// ApplyFixes applies the fixes of ds to the files that hold them (files
// maps an absolute path to its bytes, as config.Loaded.Files does) and
// returns the new bytes of every file it changed and how many fixes it
// applied. A fix whose edits overlap one already applied, or point
// outside the file, is skipped whole: running lint --fix again applies it
// once the first has landed.
func ApplyFixes(files map[string][]byte, ds []diag.Diagnostic) (map[string][]byte, int) {
	type edit struct {
		file     string
		from, to int
		text     string
	}
	taken := map[string][]edit{}
	overlaps := func(e edit) bool {
		for _, t := range taken[e.file] {
			if e.from < t.to && t.from < e.to || e.from == t.from {
				return true
			}
		}
		return false
	}
	n := 0
	for _, d := range ds {
		if d.Fix == nil || len(d.Fix.Edits) == 0 {
			continue
		}
		var es []edit
		for _, e := range d.Fix.Edits {
			src, ok := files[e.Pos.File]
			from, ok1 := tomlpos.Offset(src, e.Pos.Line, e.Pos.Col)
			to, ok2 := from, true
			if e.Pos.EndLine > 0 {
				to, ok2 = tomlpos.Offset(src, e.Pos.EndLine, e.Pos.EndCol)
			}
			if !ok || !ok1 || !ok2 || to < from {
				es = nil
				break
			}
			es = append(es, edit{e.Pos.File, from, to, e.NewText})
		}
		if es == nil || slices.ContainsFunc(es, overlaps) {
			continue
		}
		for _, e := range es {
			taken[e.file] = append(taken[e.file], e)
		}
		n++
	}
	out := map[string][]byte{}
	for file, es := range taken {
		slices.SortFunc(es, func(a, b edit) int { return a.from - b.from })
		src := files[file]
		var b bytes.Buffer
		last := 0
		for _, e := range es {
			b.Write(src[last:e.from])
			b.WriteString(e.text)
			last = e.to
		}
		b.Write(src[last:])
		out[file] = b.Bytes()
	}
	return out, n
}

// lineOf returns line n (1-based) of src without its line ending.
func lineOf(src []byte, n int) (string, bool) {
	from, ok := tomlpos.Offset(src, n, 1)
	if !ok || from > len(src) {
		return "", false
	}
	rest := src[from:]
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	return strings.TrimSuffix(string(rest), "\r"), true
}

// deleteLines is a fix that removes lines from..to (1-based, inclusive)
// of file, line endings included.
func deleteLines(msg, file string, from, to int) *diag.Fix {
	return &diag.Fix{Message: msg, Edits: []diag.TextEdit{{
		Pos: diag.Position{File: file, Line: from, Col: 1, EndLine: to + 1, EndCol: 1},
	}}}
}

// replaceSpan is a fix that replaces the text of span with text.
func replaceSpan(msg string, span diag.Position, text string) *diag.Fix {
	if !span.HasEnd() {
		return nil
	}
	return &diag.Fix{Message: msg, Edits: []diag.TextEdit{{Pos: span, NewText: text}}}
}
