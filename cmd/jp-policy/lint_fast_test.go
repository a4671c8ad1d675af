package main

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// kongLint parses `lint ARGS` with kong over the full CLI, the reference
// parser.
func kongLint(args []string) (*LintCmd, string, error) {
	var cli CLI
	cli.Stdout, cli.Stderr = io.Discard, io.Discard
	p, err := kong.New(&cli, kong.Name("jp-policy"), kong.Vars{"version": version}, kong.Exit(func(int) {}), kong.Writers(io.Discard, io.Discard))
	if err != nil {
		return nil, "", err
	}
	if _, err := p.Parse(append([]string{"lint"}, args...)); err != nil {
		return nil, "", err
	}
	return &cli.Lint, cli.Color, nil
}

// lintFastLines are lines the fast path accepts and lines it must leave to
// kong; the fuzz target starts from them.
var lintFastLines = []string{
	"",
	"-w ws",
	"--workspace ws --format json",
	"--workspace=ws --format=sarif --strict -q",
	"-w /abs/ws --quiet --portable --fix",
	"--cfg a.toml --cfg=b=1 --cfg {\"x\":1} --ignore JP101 --ignore=JP102",
	"--approvals store.json --color never",
	"--color=always -w .",
	"--workspace ~/ws",
	"--format github --cfg @p",
	"--cfg=-x",
	"--workspace=-",
	"--workspace=",
	"--approvals=~/store.json -w ../up/./ws",
	"-w ~",
	"-w ~user/ws",
	// Declined by the fast path:
	"--help",
	"-h",
	"--version",
	"-w",
	"-w --strict",
	"--format xml",
	"--format",
	"--color sometimes",
	"--ignore JP101,JP102",
	"--ignore a\\,b",
	"--ignore=",
	"--strict --strict",
	"-w a -w b",
	"--strict=true",
	"-qw ws",
	"-w=ws",
	"positional",
	"--",
	"-- -w ws",
	"--bogus",
	"-x",
}

// checkLintFast asserts the fast parser's invariant for one line: when it
// accepts, kong accepts too and yields the same command and colour.
func checkLintFast(t *testing.T, args []string) {
	t.Helper()
	fast, color, ok := parseLintFast(args)
	if !ok {
		return // kong handles it, whatever it makes of it
	}
	ref, refColor, err := kongLint(args)
	if err != nil {
		t.Fatalf("%q: fast path accepted what kong rejects (%v)", args, err)
	}
	if !reflect.DeepEqual(fast, ref) || color != refColor {
		t.Fatalf("%q:\n fast %+v color %q\n kong %+v color %q", args, *fast, color, *ref, refColor)
	}
}

// TestLintFastMatchesKong: whenever the fast path accepts a line, kong
// parses it to exactly the same command.
func TestLintFastMatchesKong(t *testing.T) {
	accepted := 0
	for _, line := range lintFastLines {
		args := strings.Fields(line)
		checkLintFast(t, args)
		if _, _, ok := parseLintFast(args); ok {
			accepted++
		}
	}
	if accepted < 10 {
		t.Fatalf("the fast path accepted only %d lines: it no longer serves the plain shapes", accepted)
	}
}

// TestLintFastDeclines lists lines that must reach kong (help, version,
// errors, values kong transforms).
func TestLintFastDeclines(t *testing.T) {
	for _, line := range []string{"--help", "-h", "--version", "-w", "--format xml", "--ignore A,B", "--strict --strict", "x", "--strict=false"} {
		if _, _, ok := parseLintFast(strings.Fields(line)); ok {
			t.Errorf("%q: the fast path must leave this to kong", line)
		}
	}
}

// TestLintFastRunsLikeKong runs whole lint lines both ways (fullGrammar
// turns the fast path off): same exit code, same bytes on both streams.
func TestLintFastRunsLikeKong(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".jp"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "[conversation.tools.t]\nsource = \"local\"\n\n[[conversation.tools.t.access.fs]]\npath = \"/\"\nread = true\n"
	if err := os.WriteFile(filepath.Join(ws, ".jp", "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", t.TempDir())
	t.Setenv("JP_USER_DATA_DIR", t.TempDir())
	for _, line := range []string{
		"lint -w " + ws,
		"lint -w " + ws + " --format json",
		"lint -w " + ws + " --format sarif --strict",
		"lint -w " + ws + " --quiet --portable",
		"lint -w " + ws + " --ignore JP107 --color always",
		"lint -w " + ws + " --cfg conversation.tools.t.run=ask",
		"lint -w " + filepath.Join(ws, "missing"),
	} {
		args := strings.Fields(line)
		if _, _, ok := parseLintFast(args[1:]); !ok {
			t.Fatalf("%q: the fast path declined a plain line", line)
		}
		c1, o1, e1 := runLine(args, true)
		c2, o2, e2 := runLine(args, false)
		if c1 != c2 || o1 != o2 || e1 != e2 {
			t.Errorf("%q differs:\nkong: exit %d\n%s%s\nfast: exit %d\n%s%s", line, c1, o1, e1, c2, o2, e2)
		}
		if o1 == "" && e1 == "" {
			t.Errorf("%q printed nothing: the comparison proves nothing", line)
		}
	}
}

// FuzzLintFastMatchesKong: for any argument list (NUL-separated), a line
// the fast path accepts is one kong parses to the same command.
func FuzzLintFastMatchesKong(f *testing.F) {
	for _, line := range lintFastLines {
		f.Add(strings.Join(strings.Fields(line), "\x00"))
	}
	f.Fuzz(func(t *testing.T, s string) {
		var args []string
		if s != "" {
			args = strings.Split(s, "\x00")
		}
		checkLintFast(t, args)
	})
}

// BenchmarkLintFastParse is the fast path's cost, to set against
// BenchmarkKongReducedLintParse.
func BenchmarkLintFastParse(b *testing.B) {
	args := []string{"--workspace", "/ws", "--format", "json"}
	for b.Loop() {
		if _, _, ok := parseLintFast(args); !ok {
			b.Fatal("declined")
		}
	}
}

// BenchmarkKongReducedLintParse is kong over the one-command grammar, what
// lint cost before its fast parser.
func BenchmarkKongReducedLintParse(b *testing.B) {
	for b.Loop() {
		g, _, _ := commandGrammar("lint")
		p, err := kong.New(g, kong.Name("jp-policy"), kong.Vars{"version": version},
			kong.Exit(func(int) {}), kong.Writers(io.Discard, io.Discard))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Parse([]string{"lint", "--workspace", "/ws", "--format", "json"}); err != nil {
			b.Fatal(err)
		}
	}
}
