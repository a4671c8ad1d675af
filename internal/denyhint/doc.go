// Package denyhint says, after a sandboxed run failed, what the policy
// most likely denied and the rule or `jp-policy mount` command that would
// allow it: one line each, at most MaxLines, for files (the caches a
// toolchain uses), network (no net rule; a client that ignores the
// filtering proxy), metadata writes on the fast path, and environment
// variables the policy did not pass.
//
// It decides from what exec already knows (the decided plan: grants, net
// rules, the path taken, the variables dropped) and the program's name;
// it traces nothing, so a hint is a likely cause, worded as such, never a
// claim that the kernel refused a given call. Hints is a pure function:
// the caller gathers Facts (including which paths exist) and prints.
package denyhint
