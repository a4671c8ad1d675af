package report

import (
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/diag"
)

// splitLine is the plain reading of a source line: the file split on
// newlines after CRLF became LF. sourceLine must agree with it.
func splitLine(b []byte, line int) (string, bool) {
	ls := strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
	if line <= 0 || line > len(ls) {
		return "", false
	}
	return ls[line-1], true
}

func checkSourceLine(t *testing.T, src string, line int) {
	t.Helper()
	files := map[string][]byte{"f": []byte(src)}
	cache := map[string][]int{}
	for range 2 { // fresh and cached
		got, ok := sourceLine(cache, files, diag.Position{File: "f", Line: line})
		want, wok := splitLine([]byte(src), line)
		if got != want || ok != wok {
			t.Fatalf("line %d of %q: got %q %v, want %q %v", line, src, got, ok, want, wok)
		}
	}
}

func TestSourceLine(t *testing.T) {
	for _, src := range []string{"", "a", "a\n", "a\nb", "a\r\nb\r\n", "a\r\rb\r", "\r\n\r\n", "x\ry\r\n\nz"} {
		for line := -1; line <= 5; line++ {
			checkSourceLine(t, src, line)
		}
	}
	if _, ok := sourceLine(map[string][]int{}, nil, diag.Position{File: "missing", Line: 1}); ok {
		t.Fatal("a file without source gave a line")
	}
}

// FuzzSourceLine: any bytes, any line number, the same line as splitting.
func FuzzSourceLine(f *testing.F) {
	f.Add("a\r\nb\nc", 2)
	f.Add("\r\r\n", 1)
	f.Fuzz(func(t *testing.T, src string, line int) {
		checkSourceLine(t, src, line%64)
	})
}
