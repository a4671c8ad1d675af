package policy

import (
	"errors"
	"path/filepath"
)

// BoundKind says what a rule's path is on this machine at compile time.
type BoundKind string

const (
	BoundDir     BoundKind = "dir"
	BoundFile    BoundKind = "file"
	BoundMissing BoundKind = "missing"
)

// Bound is one fs rule path canonicalised at compile time.
type Bound struct {
	// Lexical is what the compiled rule's lexical_path must be: the
	// canonical workspace-relative path for an ordinary rule, the lexical
	// form (own symlink unresolved) for an external rule.
	Lexical string
	// Abs is the canonical absolute path the rule governs: for an external
	// rule, the target to approve and to write as approved_target.
	Abs      string
	Kind     BoundKind
	External bool
	// Links are the symlinks the binding went through (Resolved.Links).
	Links []string
}

// BindRule canonicalises one fs rule path as written in config (RFD 076
// "Rule path canonicalization" amended by RFD D43), with root the
// canonical absolute workspace root. Errors are *RuleError:
//
//   - not_workspace_relative: absolute or escaping path, or an ordinary
//     rule that resolves outside the workspace (including through a
//     dangling link, whose destination cannot be confirmed);
//   - external_inside_workspace: external = true on a path that resolves
//     inside;
//   - broken_link: an external rule whose link is missing or dangling
//     (drop it with a warning);
//   - invalid: NUL bytes, loops, I/O errors.
//
// Binding does not consult approvals: an external Bound is kept only when
// the approvals store holds Abs for Lexical (see Bound.Approved).
func BindRule(root, path string, external bool) (Bound, error) {
	return (*StatCache)(nil).BindRule(root, path, external)
}

// BindRule is the package's BindRule with c's answers (a nil c asks the
// disk).
func (c *StatCache) BindRule(root, path string, external bool) (Bound, error) {
	lex, err := LexicalRel(path)
	if err != nil {
		var pe *PathError
		errors.As(err, &pe)
		switch pe.Kind {
		case KindAbsolute:
			return Bound{}, &RuleError{Kind: RuleNotWorkspaceRelative, Path: path, Msg: "rule paths must be workspace-relative, not absolute", Err: err}
		case KindInputEscape:
			return Bound{}, &RuleError{Kind: RuleNotWorkspaceRelative, Path: path, Msg: "rule path climbs above the workspace root with \"..\"", Err: err}
		}
		return Bound{}, &RuleError{Kind: RuleInvalid, Path: path, Msg: pe.Msg, Err: err}
	}
	if external && lex == "" {
		return Bound{}, &RuleError{Kind: RuleExternalInsideWorkspace, Path: path, Msg: "external = true on the workspace root; put it on the rule for the symlink instead"}
	}
	r, err := c.resolveLexical(root, lex, path)
	if err != nil {
		var pe *PathError
		errors.As(err, &pe)
		switch {
		case external && pe.Kind == KindDangling:
			return Bound{}, &RuleError{Kind: RuleBrokenLink, Path: path, Msg: "the external rule's symlink is dangling; the rule is dropped", Err: err}
		case pe.Kind == KindDangling:
			return Bound{}, &RuleError{Kind: RuleNotWorkspaceRelative, Path: path, Msg: "the rule path runs through a dangling symlink, so it cannot be confirmed to stay inside the workspace", Err: err}
		}
		return Bound{}, &RuleError{Kind: RuleInvalid, Path: path, Msg: pe.Msg, Err: err}
	}
	if external {
		if !r.Exists {
			return Bound{}, &RuleError{Kind: RuleBrokenLink, Path: path, Msg: "the external rule's path does not exist; the rule is dropped"}
		}
		if r.Inside {
			return Bound{}, &RuleError{Kind: RuleExternalInsideWorkspace, Path: path, Msg: "external = true, but the path resolves inside the workspace (to " + displayPath(r.Rel) + "); remove external"}
		}
		return Bound{Lexical: lex, Abs: r.Abs, Kind: c.statKind(r.Abs), External: true, Links: r.Links}, nil
	}
	if !r.Inside {
		return Bound{}, &RuleError{Kind: RuleNotWorkspaceRelative, Path: path, Msg: "the rule path resolves outside the workspace (to " + r.Abs + "); mark it external = true to mount it"}
	}
	k := BoundMissing
	if r.Exists {
		k = c.statKind(r.Abs)
	}
	return Bound{Lexical: r.Rel, Abs: r.Abs, Kind: k, Links: r.Links}, nil
}

// Approved reports whether an approval store entry (storedTarget, found)
// approves this external binding: the same canonical target, compared
// exactly after cleaning. Retargeted and unknown bindings are not.
func (b Bound) Approved(storedTarget string, found bool) bool {
	return b.External && found && storedTarget != "" && filepath.Clean(storedTarget) == b.Abs
}

// Rule builds the compiled wire rule for b with the capabilities of w
// (whose LexicalPath, External and ApprovedTarget are replaced). An
// external rule gets b.Abs as approved target: call it only for approved
// bindings.
func (b Bound) Rule(w FsRule) FsRule {
	w.LexicalPath = b.Lexical
	w.External = b.External
	w.ApprovedTarget = nil
	if b.External {
		t := b.Abs
		w.ApprovedTarget = &t
	}
	return w
}

// RuleInput is an fs rule path as written, for BindAll.
type RuleInput struct {
	Path     string
	External bool
}

// BindResult is BindAll's outcome for one rule; exactly one of Bound and
// Err is meaningful.
type BindResult struct {
	Bound Bound
	Err   error
}

// BindAll binds every rule, adding the check that needs the whole list:
// an ordinary rule whose lexical path is at or beneath an external rule's
// lexical path is nested_under_external (it could only resolve into the
// mount, where ordinary rules never apply). Results are in input order.
func BindAll(root string, rules []RuleInput) []BindResult {
	return (*StatCache)(nil).BindAll(root, rules)
}

// BindAll is the package's BindAll with c's answers (a nil c asks the
// disk).
func (c *StatCache) BindAll(root string, rules []RuleInput) []BindResult {
	out := make([]BindResult, len(rules))
	var mounts []string
	for _, r := range rules {
		if r.External {
			if lex, err := LexicalRel(r.Path); err == nil && lex != "" {
				mounts = append(mounts, lex)
			}
		}
	}
	for i, r := range rules {
		if !r.External {
			if lex, err := LexicalRel(r.Path); err == nil {
				if m, ok := underAny(lex, mounts); ok {
					out[i].Err = &RuleError{Kind: RuleNestedUnderExternal, Path: r.Path, Msg: "the rule lies inside the external mount " + m + "; capabilities inside a mount come from the mount's own rule"}
					continue
				}
			}
		}
		out[i].Bound, out[i].Err = c.BindRule(root, r.Path, r.External)
	}
	return out
}

// NestedUnderExternal reports the external mount (lexical form) that an
// ordinary rule's lexical path lies at or beneath, if any.
func NestedUnderExternal(path string, rules []RuleInput) (mount string, nested bool) {
	lex, err := LexicalRel(path)
	if err != nil {
		return "", false
	}
	var mounts []string
	for _, r := range rules {
		if r.External {
			if m, err := LexicalRel(r.Path); err == nil && m != "" {
				mounts = append(mounts, m)
			}
		}
	}
	return underAny(lex, mounts)
}

func underAny(lex string, mounts []string) (string, bool) {
	for _, m := range mounts {
		if hasRelPrefix(lex, m) {
			return m, true
		}
	}
	return "", false
}
