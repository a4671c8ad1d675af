package main

import (
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// kongExec parses `exec ARGS` with kong, the reference parser.
func kongExec(t *testing.T, args []string) (*ExecCmd, error) {
	t.Helper()
	var cli CLI
	cli.Stdout, cli.Stderr = io.Discard, io.Discard
	p, err := kong.New(&cli, kong.Name("jp-policy"), kong.Vars{"version": version}, kong.Exit(func(int) {}), kong.Writers(io.Discard, io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Parse(append([]string{"exec"}, args...)); err != nil {
		return nil, err
	}
	return &cli.Exec, nil
}

// TestExecFastMatchesKong: whenever the fast path accepts a line, kong
// parses it to exactly the same command; lines it declines are left to
// kong (errors and help included).
func TestExecFastMatchesKong(t *testing.T) {
	for _, line := range []string{
		"-t tool -- true",
		"--tool tool -- sh -c 'exit 3'",
		"--tool=tool -- true -- x",
		"-w ws -t t --dry-run -- ls -la",
		"--workspace=ws --tool t --best-effort -- true",
		"--policy p.json -t t --require-abi 6 -- true",
		"--policy=p.json --tool=t --require-abi=5 --masks -- a b c",
		"--default -t t -- true",
		"--default -- true",
		"-t t -- --help",
		"-t t -- -x",
		// Declined by the fast path:
		"--help",
		"-h",
		"-t t --help -- true",
		"-t t",
		"-t t --",
		"-t -- true",
		"--tool",
		"-t t --unknown -- true",
		"-t t -t u -- true",
		"-w ws --policy p -t t -- true",
		"--policy p --default -t t -- true",
		"--best-effort --require-abi 3 -t t -- true",
		"--require-abi x -t t -- true",
		"--dry-run=true -t t -- true",
		"-tt -- true",
		"true",
	} {
		args := strings.Fields(line)
		fast, ok := parseExecFast(args)
		ref, err := kongExec(t, args)
		if !ok {
			continue // kong handles it, whatever it makes of it
		}
		if err != nil {
			t.Errorf("%q: fast path accepted what kong rejects (%v)", line, err)
			continue
		}
		if !reflect.DeepEqual(fast, ref) {
			t.Errorf("%q:\n fast %+v\n kong %+v", line, *fast, *ref)
		}
	}
}

// TestExecFastDeclines lists lines that must reach kong (help, errors).
func TestExecFastDeclines(t *testing.T) {
	for _, line := range []string{"--help", "-h", "-t t", "-t t --", "-t t --bogus -- x", "-w a --policy b -t t -- x"} {
		if _, ok := parseExecFast(strings.Fields(line)); ok {
			t.Errorf("%q: the fast path must leave this to kong", line)
		}
	}
}

// BenchmarkExecFastParse is the fast path's cost, to set against
// BenchmarkKongExecParse.
func BenchmarkExecFastParse(b *testing.B) {
	args := []string{"-t", "tool", "--", "true"}
	for i := 0; i < b.N; i++ {
		if _, ok := parseExecFast(args); !ok {
			b.Fatal("declined")
		}
	}
}
