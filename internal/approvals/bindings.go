package approvals

import (
	"errors"
	"fmt"
	"time"

	"github.com/jp-policy/jp-policy/policy"
)

// Binding is one approval as `approvals list` shows it: what was approved
// and where the link points now.
type Binding struct {
	RulePath   string        `json:"rule_path"`
	Approved   string        `json:"approved_target"`
	ApprovedAt time.Time     `json:"approved_at"`
	Current    string        `json:"current_target,omitempty"`
	Status     BindingStatus `json:"status"`
	Problem    string        `json:"problem,omitempty"`
}

// BindingStatus says whether an approval still holds.
type BindingStatus string

const (
	BindingOK         BindingStatus = "ok"         // the link resolves to the approved target
	BindingRetargeted BindingStatus = "retargeted" // it resolves somewhere else now
	BindingBroken     BindingStatus = "broken"     // it is gone, dangling or no longer external
)

// ListBindings checks every approval against the filesystem through
// policy.BindRule, the compiler's own binding, so "approved" here means
// the compiler would accept the link as it is now.
func ListBindings(root string, store *Store) []Binding {
	var out []Binding
	for _, e := range store.Entries() {
		b := Binding{RulePath: e.RulePath, Approved: e.CanonicalTarget, ApprovedAt: e.ApprovedAt}
		bound, err := policy.BindRule(root, e.RulePath, true)
		switch {
		case err != nil:
			b.Status, b.Problem = BindingBroken, err.Error()
		case store.Classify(e.RulePath, bound.Abs).Kind == Approved:
			b.Current, b.Status = bound.Abs, BindingOK
		default:
			b.Current, b.Status = bound.Abs, BindingRetargeted
		}
		out = append(out, b)
	}
	return out
}

// ApproveRule records the current target of the external rule at
// rulePath (workspace-relative, as written in config). It returns the
// normalised rule path, the approved target and the status before.
func ApproveRule(root, rulePath string, store *Store, now time.Time) (string, string, Status, error) {
	bound, err := policy.BindRule(root, rulePath, true)
	if err != nil {
		var re *policy.RuleError
		if errors.As(err, &re) && re.Kind == policy.RuleExternalInsideWorkspace {
			return "", "", Status{}, fmt.Errorf("%s resolves inside the workspace; only a symlink that leads outside needs an approval", rulePath)
		}
		return "", "", Status{}, fmt.Errorf("cannot approve %s: %w", rulePath, err)
	}
	before := store.Classify(bound.Lexical, bound.Abs)
	if before.Kind != Approved {
		store.Approve(bound.Lexical, bound.Abs, now)
	}
	return bound.Lexical, bound.Abs, before, nil
}
