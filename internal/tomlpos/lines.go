package tomlpos

import (
	"sort"
	"unicode/utf8"

	"github.com/jp-policy/jp-policy/internal/diag"
)

// lineIndex turns byte offsets into 1-based line and column numbers in
// O(log n + line length). Columns count Unicode code points, the unit of
// editors, of the text report's caret and of SARIF's "unicodeCodePoints"
// column kind, so a key after an accented letter is not off by one.
type lineIndex struct {
	file   string
	data   []byte
	starts []int
}

func newLineIndex(file string, data []byte) *lineIndex {
	li := &lineIndex{file: file, data: data, starts: []int{0}}
	for i, b := range data {
		if b == '\n' {
			li.starts = append(li.starts, i+1)
		}
	}
	return li
}

func (li *lineIndex) lineCol(off int) (int, int) {
	off = min(max(off, 0), len(li.data))
	line := sort.SearchInts(li.starts, off+1) - 1
	return line + 1, utf8.RuneCount(li.data[li.starts[line]:off]) + 1
}

// pos is the position of the byte at off, without an end.
func (li *lineIndex) pos(off int) diag.Position {
	line, col := li.lineCol(off)
	return diag.Position{File: li.file, Line: line, Col: col}
}

// span is the position of the bytes [off, end): where a value starts and
// the position just after its last character.
func (li *lineIndex) span(off, end int) diag.Position {
	p := li.pos(off)
	if end > off {
		p.EndLine, p.EndCol = li.lineCol(end)
	}
	return p
}
