package lint

import (
	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/policy"
)

var ruleJP103 = Rule{
	ID: "JP103", Name: "path-outside-workspace", Severity: diag.Error,
	Title: "An fs rule path is absolute, climbs out with `..`, or resolves outside the workspace through a symlink",
	Description: "Rule paths are workspace-relative (RFD 076) and are canonicalised when the policy is compiled. An absolute path, a `..` that climbs above the root, " +
		"or an ordinary rule that reaches outside through a symlink (or through a dangling one, whose destination cannot be confirmed) is rejected: reaching outside needs an explicit, approved `external` rule.",
	Fix: "Use a path inside the workspace. To give a tool an outside directory, create a symlink in the workspace (`jp-policy mount`) and write an `external = true` rule for it.",
	check: func(p *pass) {
		reportBindErrors(p, policy.RuleNotWorkspaceRelative, "path",
			"use a workspace-relative path; to reach outside, mount it with a symlink and an external = true rule")
	},
}
