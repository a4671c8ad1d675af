package lint

import (
	"errors"

	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// bindFS binds a tool's fs rules exactly as the compiler does, through
// policy.BindAll (through disk, nil for the live disk), so lint reports
// the errors compile would hit.
func bindFS(disk *policy.StatCache, root string, rules []config.FsRule) []*boundRule {
	in := make([]policy.RuleInput, len(rules))
	for i, r := range rules {
		in[i] = policy.RuleInput{Path: r.Path, External: r.External != nil && *r.External}
	}
	out := make([]*boundRule, len(rules))
	if root == "" {
		for i, r := range rules {
			out[i] = &boundRule{err: &policy.RuleError{Kind: policy.RuleInvalid, Path: r.Path, Msg: "the workspace root is unknown"}}
		}
		return out
	}
	for i, res := range disk.BindAll(root, in) {
		b := &boundRule{}
		if res.Err != nil {
			var re *policy.RuleError
			if !errors.As(res.Err, &re) {
				re = &policy.RuleError{Kind: policy.RuleInvalid, Path: rules[i].Path, Msg: res.Err.Error(), Err: res.Err}
			}
			b.err = re
		} else {
			b.key, b.abs, b.external = res.Bound.Lexical, res.Bound.Abs, res.Bound.External
		}
		out[i] = b
	}
	return out
}
