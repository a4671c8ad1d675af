package lint

import (
	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/policy"
)

var ruleJP120 = Rule{
	ID: "JP120", Name: "fs-rule-invalid", Severity: diag.Error,
	Title: "An fs rule path cannot be bound (NUL byte, symlink loop, I/O error)",
	Description: "The compiler could not canonicalise the rule's path for a reason other than where it points: a NUL byte, a symlink loop, a path that is too long, or a permission error while resolving it. " +
		"Compile fails rather than guess what the rule means.",
	Fix: "Fix the path or the file system problem the message names.",
	check: func(p *pass) {
		reportBindErrors(p, policy.RuleInvalid, "path", "fix the path or the file system problem named above")
	},
}
