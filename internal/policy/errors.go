package policy

import (
	"errors"
	"fmt"
	"strings"
)

// PathErrorKind says why a target path was rejected before any rule was
// consulted, or why it escaped.
type PathErrorKind string

const (
	// KindAbsolute: the input is absolute or rooted; tool calls must be
	// workspace-relative (RFD D43).
	KindAbsolute PathErrorKind = "absolute"
	// KindInputEscape: lexical `..` collapsing climbs above the root.
	KindInputEscape PathErrorKind = "input_escape"
	// KindEscape: the canonical path lies outside the workspace and no
	// approved external rule contains it.
	KindEscape PathErrorKind = "escape"
	// KindDangling: a symlink on the path points at something that does
	// not exist. JP would treat the link as a new file inside the
	// workspace; writing through it would create the file at the link's
	// target, wherever that is, so it is refused.
	KindDangling PathErrorKind = "dangling"
	// KindLoop: more than MaxSymlinks links were followed.
	KindLoop PathErrorKind = "loop"
	// KindNUL: the input holds a NUL byte, which no OS path can.
	KindNUL PathErrorKind = "nul"
	// KindTooLong: the input or its resolution exceeds MaxPathLen, or a
	// component is longer than the file system allows.
	KindTooLong PathErrorKind = "too_long"
	// KindIO: resolving failed for another reason (permissions, ...).
	KindIO PathErrorKind = "io"
	// KindInvalid: the input is malformed in another way (empty, a root
	// that is not absolute, ...).
	KindInvalid PathErrorKind = "invalid"
)

// PathError is returned by Canonicalize and carried in fs Decisions.
type PathError struct {
	Kind PathErrorKind
	// Path is the input as given, or the canonical path for KindEscape.
	Path string
	Msg  string
	// Err is the underlying OS error for KindIO and KindTooLong, if any.
	Err error
}

func (e *PathError) Error() string {
	if e.Msg == "" {
		return fmt.Sprintf("%s: %q", e.Kind, e.Path)
	}
	return fmt.Sprintf("%s: %q", e.Msg, e.Path)
}

func (e *PathError) Unwrap() error { return e.Err }

// JSONKind maps the kind onto the smaller vocabulary of `check --json`:
// dangling links count as escapes (their target is not known to be inside
// the workspace), loops as I/O errors (the OS reports ELOOP), and NUL
// bytes and over-long paths as invalid input.
func (k PathErrorKind) JSONKind() string {
	switch k {
	case KindAbsolute, KindInputEscape, KindEscape, KindIO, KindInvalid:
		return string(k)
	case KindDangling:
		return "escape"
	case KindLoop:
		return "io"
	default: // nul, too_long
		return "invalid"
	}
}

// DeniedError is a Decision's error when the request was well-formed and
// resolved, but no rule grants it.
type DeniedError struct {
	// Resource is "fs", "net", "env", "config" or "command".
	Resource string
	// Capability is what was asked: read/create/update/delete/execute for
	// fs and config, "connect" for net, "read" for env, "run" for command.
	Capability string
	// Target is what the rules were matched against (the canonical
	// workspace-relative path for fs, the normalised URL for net, ...).
	Target string
	// Rule describes the winning rule that refused, "" when none matched.
	Rule string
	// Grants lists what would grant Capability, so the user knows what to
	// change.
	Grants []string
	// Hint is an extra line for people ("" when there is nothing to add).
	Hint string
}

func (e *DeniedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "access denied: %s on %s %q", e.Capability, e.Resource, e.Target)
	if e.Rule != "" {
		fmt.Fprintf(&b, " (rule %s does not grant %s)", e.Rule, e.Capability)
	} else {
		b.WriteString(" (no rule matches)")
	}
	return b.String()
}

// InputError rejects a net, env, config or command request that is not
// well-formed (an unparsable URL, an env name with '*', ...).
type InputError struct {
	Resource string
	Input    string
	Msg      string
}

func (e *InputError) Error() string {
	return fmt.Sprintf("invalid %s request %q: %s", e.Resource, e.Input, e.Msg)
}

// ErrorKind returns the `check --json` error kind of a Decision's error:
// absolute, input_escape, escape, denied, io or invalid.
func ErrorKind(err error) string {
	if err == nil {
		return ""
	}
	if pe, ok := errors.AsType[*PathError](err); ok {
		return pe.Kind.JSONKind()
	}
	if _, ok := errors.AsType[*DeniedError](err); ok {
		return "denied"
	}
	return "invalid"
}

// RuleErrorKind says why a rule could not be bound at compile time.
type RuleErrorKind string

const (
	// RuleNotWorkspaceRelative: an absolute or escaping rule path, or an
	// ordinary rule that resolves outside the workspace (through a symlink,
	// or through a dangling link whose target cannot be confirmed).
	RuleNotWorkspaceRelative RuleErrorKind = "not_workspace_relative"
	// RuleExternalInsideWorkspace: `external = true` on a path that
	// resolves inside the workspace (RFD D43 forbids the ambiguity).
	RuleExternalInsideWorkspace RuleErrorKind = "external_inside_workspace"
	// RuleBrokenLink: an external rule whose link is missing or dangling;
	// the caller drops the rule with a warning (RFD D43 step 6).
	RuleBrokenLink RuleErrorKind = "broken_link"
	// RuleNestedUnderExternal: an ordinary rule at or beneath another
	// rule's external mount; it could only ever resolve outside.
	RuleNestedUnderExternal RuleErrorKind = "nested_under_external"
	// RuleInvalid: anything else (NUL bytes, loops, I/O errors).
	RuleInvalid RuleErrorKind = "invalid"
)

// RuleError is returned by BindRule and BindAll.
type RuleError struct {
	Kind RuleErrorKind
	// Path is the rule path as written.
	Path string
	Msg  string
	Err  error
}

func (e *RuleError) Error() string {
	return fmt.Sprintf("fs rule %q: %s", e.Path, e.Msg)
}

func (e *RuleError) Unwrap() error { return e.Err }

// PolicyError reports a malformed rule in an AccessPolicy handed to
// NewChecker (or Validate): the policy is a config error, not a denial.
type PolicyError struct {
	// Section is "fs", "net", "env", "config" or "commands".
	Section string
	// Index is the rule's position in its list, -1 for commands.
	Index int
	// Key names the command for commands, else "".
	Key string
	Err error
}

func (e *PolicyError) Error() string {
	if e.Section == "commands" {
		return fmt.Sprintf("access.commands[%q]: %v", e.Key, e.Err)
	}
	return fmt.Sprintf("access.%s[%d]: %v", e.Section, e.Index, e.Err)
}

func (e *PolicyError) Unwrap() error { return e.Err }
