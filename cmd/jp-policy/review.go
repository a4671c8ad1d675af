package main

import (
	"errors"
	"fmt"

	"github.com/jp-policy/jp-policy/internal/compiler"
)

// compileReviewed runs compiler.CompileReviewed and shows the grant diff
// against what was last accepted here on stderr, before the artifact is
// replaced (or instead, when a widening is refused). A prompt that asked
// has shown it already.
func compileReviewed(g *Globals, opts compiler.Options, rv compiler.Review) (*compiler.Result, string, error) {
	res, out, ro, err := compiler.CompileReviewed(opts, rv)
	if ro != nil && ro.Lost != nil {
		fmt.Fprintf(g.Stderr, "jp-policy: warning: %v\n", ro.Lost)
	}
	if we, ok := errors.AsType[*compiler.WideningError](err); ok {
		if !we.Declined {
			fmt.Fprint(g.Stderr, we.Diff.Text())
		}
		return nil, "", fail(exitFail, err)
	}
	if err != nil {
		return nil, "", compileError(g, err)
	}
	if ro.Diff != nil && !ro.Diff.Empty() && !ro.Prompted {
		fmt.Fprintf(g.Stderr, "grant changes against the policy compiled before:\n%s", ro.Diff.Text())
		switch {
		case ro.ByMount:
			fmt.Fprintln(g.Stderr, "accepted: these are the grants `jp-policy mount` added")
		case ro.Accepted:
			fmt.Fprintln(g.Stderr, "accepted with --accept-widening")
		}
	}
	return res, out, nil
}
