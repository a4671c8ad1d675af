package completion

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzWrite feeds arbitrary names, help text and enum words to every
// generator. Invariants: no panic; a refused tree writes nothing; an
// accepted one is deterministic and every line of it closes all the
// quotes it opens, so no help text or enum word can escape its quoting
// and become shell code.
func FuzzWrite(f *testing.F) {
	f.Add("check", "Ask whether access is allowed.", "read,create", "tool")
	f.Add("it's", "it's got 'quotes' and \\ back\\slashes", "a'b,c\\d", "x")
	f.Add("lint", "multi\nline\thelp $(rm -rf /) `id` ${HOME}", "$(id),`id`", "no-color")
	f.Add("a", "", "", "")
	f.Fuzz(func(t *testing.T, name, help, enum, flag string) {
		tree := &Command{Name: "prog", Help: help, Commands: []*Command{{
			Name:    name,
			Help:    help,
			Aliases: []string{name + "x"},
			Flags:   []Flag{{Name: flag, Help: help, Short: 'f', Value: &Value{Kind: KindEnum, Enum: strings.Split(enum, ",")}}},
			Args:    []Arg{{Name: "a", Help: help, Value: Value{Kind: KindEnum, Enum: strings.Split(enum, ",")}}},
		}}}
		for _, shell := range Shells {
			var first, second bytes.Buffer
			err := Write(&first, shell, tree)
			if err != nil {
				if first.Len() != 0 {
					t.Fatalf("%s: error %v but wrote %d bytes", shell, err, first.Len())
				}
				continue
			}
			if err := Write(&second, shell, tree); err != nil || !bytes.Equal(first.Bytes(), second.Bytes()) {
				t.Fatalf("%s: second run differs (err %v)", shell, err)
			}
			if line, ok := quotesClosed(shell, first.String()); !ok {
				t.Fatalf("%s: quote left open on line %q", shell, line)
			}
		}
	})
}

// quotesClosed reports whether every line ends outside single quotes, by
// the shell's rules: bash and zsh have no escapes inside '...'; fish has
// \' and \\. Outside quotes a backslash escapes the next byte, and a #
// starting a word comments out the rest of the line.
func quotesClosed(shell, script string) (string, bool) {
	for line := range strings.SplitSeq(script, "\n") {
		in := false
		for i := 0; i < len(line); i++ {
			c := line[i]
			switch {
			case in && c == '\'':
				in = false
			case in && shell == "fish" && c == '\\' && i+1 < len(line) && (line[i+1] == '\'' || line[i+1] == '\\'):
				i++
			case in:
			case c == '\\':
				i++
			case c == '\'':
				in = true
			case c == '#' && (i == 0 || line[i-1] == ' '):
				i = len(line)
			}
		}
		if in {
			return line, false
		}
	}
	return "", true
}

func TestQuotesClosedCatchesInjection(t *testing.T) {
	for _, tc := range []struct {
		shell, line string
		ok          bool
	}{
		{"bash", `x=('it'\''s')`, true},
		{"bash", `x=('it's')`, false},
		{"fish", `echo 'it\'s'`, true},
		{"bash", `echo 'it\'s'`, false}, // fish quoting is wrong in bash
		{"fish", `echo 'a\\'b'`, false},
		{"bash", `# it's a comment`, true},
		{"zsh", `[[ $w == "$p"* ]] && print 'a'`, true},
	} {
		if _, ok := quotesClosed(tc.shell, tc.line); ok != tc.ok {
			t.Errorf("%s %q: closed=%v, want %v", tc.shell, tc.line, ok, tc.ok)
		}
	}
}
