package termstyle

import (
	"io"
	"os"
	"strconv"

	"golang.org/x/term"
)

// DefaultWidth is the width used when the output is not a terminal: a
// file or a pipe gets lines that read well in an 80-column pager or diff.
const DefaultWidth = 80

// minWidth keeps a tiny or bogus COLUMNS from wrapping every word onto its
// own line.
const minWidth = 40

// Width is the number of columns to wrap output written to w at: $COLUMNS
// when it holds a number (shells set it for the user; tests and scripts
// pin it), else the terminal's width when w is one, else DefaultWidth.
// Anything below 40 columns counts as 40.
func Width(w io.Writer, getenv func(string) (string, bool)) int {
	if getenv == nil {
		getenv = os.LookupEnv
	}
	n := 0
	if v, ok := getenv("COLUMNS"); ok {
		if c, err := strconv.Atoi(v); err == nil && c > 0 {
			n = c
		}
	}
	if n == 0 {
		if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			if c, _, err := term.GetSize(int(f.Fd())); err == nil && c > 0 {
				n = c
			}
		}
	}
	if n == 0 {
		n = DefaultWidth
	}
	return max(n, minWidth)
}
