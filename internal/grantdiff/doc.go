// Package grantdiff computes the grant-level difference between two
// compiled artifacts: per tool and per clause (fs, net, env, commands,
// config, and the tool itself), which grants became wider and which
// narrower, in words a reviewer reads in a pull request.
//
// Widening is decided per capability on the canonical grants, never by
// comparing text: fs, net, env and config questions are asked of package
// policy's evaluator (policy.NewChecker) for both sides, over a set of
// probes that covers every equivalence class of the two rule lists (for
// fs: every rule path of either side, the root, and the self-escalation
// paths JP116 names; for net: every host, scheme, port and path prefix
// class; for env: every exact name, prefix and "no rule" class; for
// config: every rule path with its wildcards instantiated). Two policies
// that decide every probe alike decide every request alike, so "nothing
// widened" is a guarantee, not a heuristic: the property test checks it
// on random requests.
//
// Commands are compared structurally (a nil table is any program; an
// args prefix is covered when one old prefix matches everything it
// matches), since deciding them through the evaluator would need PATH.
//
// The diff is pure: it reads no files beyond a temporary empty directory
// used as the evaluation root (fs rule keys are workspace-relative, so the
// two artifacts' roots may differ, as they do between two git revisions
// materialised in temporary directories).
package grantdiff
