package compiler

import (
	"errors"
	"fmt"

	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/lint"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// boundRule is one written fs rule after binding to this machine. Drop is
// set when the rule must not reach the compiled policy (broken link); the
// reason is already a warning.
type boundRule struct {
	Src   config.FsRule
	Bound policy.Bound
	Drop  bool
}

// bindAll canonicalises every fs rule of every compiled tool through
// policy.BindRule, the one routine that decides where a rule path lands,
// through disk, the view of the file system lint bound the same rules
// through.
// Lint has already refused rules that escape or that mark an in-workspace
// path external; any such error that still reaches here is fatal, never a
// silently widened rule.
func bindAll(disk *policy.StatCache, root string, l *config.Loaded, names []string) (map[string][]boundRule, []diag.Diagnostic, error) {
	out := map[string][]boundRule{}
	var warns []diag.Diagnostic
	for _, name := range names {
		t := l.Tools[name]
		if t.Access == nil {
			continue
		}
		inputs := make([]policy.RuleInput, len(t.Access.FS))
		for i, r := range t.Access.FS {
			inputs[i] = policy.RuleInput{Path: r.Path, External: r.External != nil && *r.External}
		}
		results := disk.BindAll(root, inputs)
		rules := make([]boundRule, 0, len(results))
		for i, res := range results {
			r := t.Access.FS[i]
			if res.Err == nil {
				rules = append(rules, boundRule{Src: r, Bound: res.Bound})
				continue
			}
			if inputs[i].External && isBrokenLink(res.Err) {
				warns = append(warns, diag.Diagnostic{
					Pos:      keyPos(r.Pos, r.Keys, "path"),
					Severity: diag.Warning,
					Rule:     lint.BindErrorRule(res.Err), // JP105, as lint says
					Message:  fmt.Sprintf("tool %s: external rule %q dropped: %v", name, r.Path, res.Err),
					Help:     "create the symlink (or use `jp-policy mount`) and compile again; until then the tool has no access there",
				})
				rules = append(rules, boundRule{Src: r, Drop: true})
				continue
			}
			id := lint.BindErrorRule(res.Err)
			help := "see `jp-policy rules " + id + "` for how to fix this rule"
			if rule, ok := lint.Lookup(id); ok {
				help = rule.Fix
			}
			return nil, nil, diag.List{{
				Pos:      keyPos(r.Pos, r.Keys, "path"),
				Severity: diag.Error,
				Rule:     id,
				Message:  fmt.Sprintf("tool %s: rule path %q: %v", name, r.Path, res.Err),
				Help:     help,
			}}
		}
		out[name] = rules
	}
	return out, warns, nil
}

func isBrokenLink(err error) bool {
	var re *policy.RuleError
	return errors.As(err, &re) && re.Kind == policy.RuleBrokenLink
}

// keyPos returns the span of key's value inside a rule (where lint puts
// its caret too), or the rule's own position when the key was not
// written.
func keyPos(p diag.Position, keys config.Keys, key string) diag.Position {
	if kp, ok := keys.Get(key); ok {
		return kp
	}
	return p
}
