package tomlpos

import (
	"sort"

	"github.com/jp-policy/jp-policy/internal/diag"
)

// lineIndex turns byte offsets into 1-based line and column numbers in
// O(log n); columns count bytes, as go-toml's own errors do.
type lineIndex struct {
	file   string
	starts []int
	size   int
}

func newLineIndex(file string, data []byte) *lineIndex {
	li := &lineIndex{file: file, starts: []int{0}, size: len(data)}
	for i, b := range data {
		if b == '\n' {
			li.starts = append(li.starts, i+1)
		}
	}
	return li
}

func (li *lineIndex) pos(off int) diag.Position {
	if off < 0 {
		off = 0
	}
	if off > li.size {
		off = li.size
	}
	line := sort.SearchInts(li.starts, off+1) - 1
	return diag.Position{File: li.file, Line: line + 1, Col: off - li.starts[line] + 1}
}
