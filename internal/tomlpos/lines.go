package tomlpos

import (
	"bytes"
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
	// base is added to every offset asked about: the parser may read
	// data past a prefix (a byte order mark) it must not see.
	base int
}

func newLineIndex(file string, data []byte) *lineIndex {
	starts := make([]int, 1, bytes.Count(data, []byte{'\n'})+1)
	li := &lineIndex{file: file, data: data, starts: starts}
	for i, b := range data {
		if b == '\n' {
			li.starts = append(li.starts, i+1)
		}
	}
	return li
}

func (li *lineIndex) lineCol(off int) (int, int) {
	off = min(max(off+li.base, 0), len(li.data))
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

// Offset turns a 1-based line and code-point column, as this package
// writes them, back into a byte offset of src. The column just past a
// line's end, and column 1 of the line after the last, are valid (a span
// may end there); anything else outside src is not.
func Offset(src []byte, line, col int) (int, bool) {
	if line < 1 || col < 1 {
		return 0, false
	}
	off := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			if l == line-1 && col == 1 {
				return len(src), true
			}
			return 0, false
		}
		off += i + 1
	}
	for c := 1; c < col; c++ {
		if off >= len(src) || src[off] == '\n' {
			return 0, false
		}
		_, size := utf8.DecodeRune(src[off:])
		off += size
	}
	return off, true
}
