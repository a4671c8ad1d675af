package main

import (
	"fmt"
	"reflect"

	"github.com/alecthomas/kong"
)

// Why this file exists: docs/exec.md promises that everything after `--`
// reaches the child unchanged, but kong decodes each argument as UTF-8 and
// replaces invalid bytes with U+FFFD (`a\xdfb` became `a\xef\xbf\xbdb`).
// Arguments are bytes on Unix, and a file name or a grep pattern may be in
// Latin-1, so when kong parsed an exec line its passthrough is replaced
// by the same arguments taken from the raw command line. The fast parser
// (exec_fast.go) slices the raw line already.

// selectedExec returns the ExecCmd kong filled in, if exec is the command
// the line selected.
func selectedExec(ctx *kong.Context) *ExecCmd {
	n := ctx.Selected()
	if n == nil || !n.Target.IsValid() {
		return nil
	}
	v := n.Target
	if v.Kind() != reflect.Pointer && v.CanAddr() {
		v = v.Addr()
	}
	c, _ := reflect.TypeAssert[*ExecCmd](v)
	return c
}

// rawPassthrough returns the raw arguments kong parsed into parsed. exec's
// command is a passthrough positional, so it always runs to the end of the
// line: its raw form is the last len(parsed) arguments. Each raw argument
// must decode to what kong made of it; anything else means kong's parse
// no longer works the way this relies on, and exec refuses rather than run
// arguments it cannot vouch for.
func rawPassthrough(args, parsed []string) ([]string, error) {
	if len(parsed) > len(args) {
		return nil, fmt.Errorf("internal error: exec parsed %d arguments from a line of %d", len(parsed), len(args))
	}
	raw := args[len(args)-len(parsed):]
	for i, r := range raw {
		if r != parsed[i] && string([]rune(r)) != parsed[i] {
			return nil, fmt.Errorf("internal error: exec argument %d is %q on the command line but %q after parsing", i, r, parsed[i])
		}
	}
	return raw, nil
}
