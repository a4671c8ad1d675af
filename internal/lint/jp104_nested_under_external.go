package lint

import (
	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/policy"
)

var ruleJP104 = Rule{
	ID: "JP104", Name: "nested-under-external", Severity: diag.Error,
	Title: "An ordinary rule lies inside an external mount",
	Description: "Below an external rule's symlink every path resolves outside the workspace, where ordinary rules never apply (RFD D43). " +
		"A rule such as `fork/src` next to an external `fork` would silently do nothing, or, if honoured, reach outside without its own approval.",
	Fix: "Make the nested rule `external = true` and approve its target (`jp-policy approvals approve PATH`), or fold its capabilities into the mount's rule.",
	check: func(p *pass) {
		reportBindErrors(p, policy.RuleNestedUnderExternal, "path",
			"mark this rule external = true and approve its target, or remove it")
	},
}
