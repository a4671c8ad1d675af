package main

import (
	"io"
	"slices"
	"strings"
	"testing"
)

// execPrefixes are flag lists before `--`: some the fast parser takes,
// some that send the line to kong (a bool flag with =value, a repeated
// flag, flags after a value), so the promise is checked on both paths.
var execPrefixes = [][]string{
	{"-t", "t"},
	{"--tool=t", "--masks"},
	{"-w", "ws", "-t", "t", "--best-effort"},
	{"--dry-run=false", "-t", "t"},
	{"-t", "t", "-t", "u"},
	{"--default", "--tool", "t", "--dry-run=true"},
}

// execLine parses `exec PREFIX -- rest...` the way run does and returns
// the child's argv.
func execLine(t *testing.T, prefix, rest []string) []string {
	t.Helper()
	args := append(append(append([]string{"exec"}, prefix...), "--"), rest...)
	line, code, done := parse(args, nil, io.Discard, io.Discard)
	if done {
		t.Fatalf("%q: not parsed (exit %d)", args, code)
	}
	if line.exec == nil {
		t.Fatalf("%q: parsed, but not as exec", args)
	}
	return line.exec.argv()
}

// TestExecArgvVerbatim: bytes that are not UTF-8 (which kong turns into
// U+FFFD) and later "--" reach the child unchanged on both parsers.
func TestExecArgvVerbatim(t *testing.T) {
	rest := []string{"printf", "a\xdfb", "--", "\xff\xfe", "-t", "--dry-run=x", ""}
	for _, prefix := range execPrefixes {
		if got := execLine(t, prefix, rest); !slices.Equal(got, rest) {
			t.Errorf("%q: child argv %q, want %q", prefix, got, rest)
		}
	}
}

// FuzzExecArgvVerbatim is docs/exec.md's promise as an invariant:
// whatever flags come before the first `--`, every argument after it
// reaches the child byte for byte, in order.
func FuzzExecArgvVerbatim(f *testing.F) {
	for i := range execPrefixes {
		f.Add(uint8(i), []byte("true"))
		f.Add(uint8(i), []byte("sh\x00-c\x00echo a\xdfb\x00--\x00c\xff"))
		f.Add(uint8(i), []byte("--help\x00-t\x00\xc3"))
	}
	f.Fuzz(func(t *testing.T, which uint8, tail []byte) {
		rest := strings.Split(string(tail), "\x00")
		prefix := execPrefixes[int(which)%len(execPrefixes)]
		if got := execLine(t, prefix, rest); !slices.Equal(got, rest) {
			t.Fatalf("%q -- %q: child argv %q", prefix, rest, got)
		}
	})
}
