package main

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// TestCommandGrammarMatchesFull: serving a command from a grammar that
// holds only that command prints exactly what the full CLI prints (help,
// errors, output) and exits the same way.
func TestCommandGrammarMatchesFull(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	lines := []string{"rules", "rules JP101", "rules JP999", "schema", "lint --bogus", "check fs", "check", "exec",
		"uri", "approvals", "check --root . --access missing.json fs read x"}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[CLI]()) {
		if _, ok := f.Tag.Lookup("cmd"); ok {
			lines = append(lines, commandName(f)+" --help")
		}
	}
	for _, line := range lines {
		args := strings.Fields(line)
		c1, o1, e1 := runLine(args, true)
		c2, o2, e2 := runLine(args, false)
		if c1 != c2 || o1 != o2 || e1 != e2 {
			t.Errorf("%q differs:\nfull:    exit %d\n%s%s\nreduced: exit %d\n%s%s", line, c1, o1, e1, c2, o2, e2)
		}
	}
}

// runLine runs args in-process, over the full kong model (full, which
// also turns the fast parsers off) or the way main does, and returns the
// exit code and both streams.
func runLine(args []string, full bool) (int, string, string) {
	fullGrammar = full
	defer func() { fullGrammar = false }()
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestCommandGrammarCoversEveryCommand(t *testing.T) {
	for _, f := range reflect.VisibleFields(reflect.TypeFor[CLI]()) {
		if _, ok := f.Tag.Lookup("cmd"); !ok {
			continue
		}
		name := commandName(f)
		_, _, ok := commandGrammar(name)
		if want := name != "completion"; ok != want {
			t.Errorf("commandGrammar(%q) ok = %v, want %v", name, ok, want)
		}
	}
	if _, _, ok := commandGrammar("frobnicate"); ok {
		t.Error("an unknown name got a grammar")
	}
}
