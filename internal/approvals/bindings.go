package approvals

import (
	"errors"
	"fmt"
	"time"

	"github.com/jp-policy/jp-policy/internal/policy"
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
	// ApprovedIn lists the workspaces the approval was given in (absent
	// for one written by hand, which holds in every workspace).
	ApprovedIn []string `json:"approved_in,omitempty"`
}

// BindingStatus says whether an approval still holds.
type BindingStatus string

const (
	BindingOK         BindingStatus = "ok"         // the link resolves to the approved target
	BindingRetargeted BindingStatus = "retargeted" // it resolves somewhere else now
	BindingBroken     BindingStatus = "broken"     // it is gone, dangling or no longer external
	// BindingOtherWorkspace: the link resolves to the approved target, but
	// the approval was given only in other workspaces sharing this one's
	// id, so it does not hold here.
	BindingOtherWorkspace BindingStatus = "other_workspace"
)

// ListBindings checks every approval against the filesystem through
// policy.BindRule, the compiler's own binding, so "approved" here means
// the compiler would accept the link as it is now.
func ListBindings(root string, store *Store) []Binding {
	var out []Binding
	for _, e := range store.Entries() {
		b := Binding{RulePath: e.RulePath, Approved: e.CanonicalTarget, ApprovedAt: e.ApprovedAt, ApprovedIn: e.ApprovedIn}
		bound, err := policy.BindRule(root, e.RulePath, true)
		if err != nil {
			b.Status, b.Problem = BindingBroken, err.Error()
			out = append(out, b)
			continue
		}
		b.Current = bound.Abs
		switch store.Classify(e.RulePath, bound.Abs, root).Kind {
		case Approved:
			b.Status = BindingOK
		case OtherWorkspace:
			b.Status = BindingOtherWorkspace
		default:
			b.Status = BindingRetargeted
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
	before := store.Classify(bound.Lexical, bound.Abs, root)
	if before.Kind != Approved {
		store.Approve(bound.Lexical, bound.Abs, root, now)
	}
	return bound.Lexical, bound.Abs, before, nil
}
