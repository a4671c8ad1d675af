package lint

import (
	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/policy"
)

var ruleJP101 = Rule{
	ID: "JP101", Name: "external-inside-workspace", Severity: diag.Error,
	Title: "`external = true` on a rule whose path resolves inside the workspace",
	Description: "`external` acknowledges that a rule's path is a symlink leading out of the workspace (RFD D43). On a path that resolves inside (`.`, `src`) it has no meaning, " +
		"and reading it as \"follow any symlink anywhere\" would be a hole, so the compiler rejects the rule.",
	Fix: "Remove `external`, or move it to a rule whose path is the symlink that leads outside the workspace.",
	check: func(p *pass) {
		reportBindErrors(p, policy.RuleExternalInsideWorkspace, "external",
			"remove external = true, or put it on a rule that points at the symlink to the outside directory")
	},
}
