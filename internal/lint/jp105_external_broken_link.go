package lint

import (
	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/policy"
)

var ruleJP105 = Rule{
	ID: "JP105", Name: "external-broken-link", Severity: diag.Warning, Suppressible: true,
	Title: "An external rule's symlink is missing or dangling",
	Description: "An external rule whose link does not exist on this machine, or points at nothing, is dropped when the policy is compiled (RFD D43): the tool gets no access there. " +
		"That is safe, but usually means the mount was never created on this machine or its target moved.",
	Fix: "Create the link (`jp-policy mount NAME=PATH`) or fix its target; remove the rule if the mount is gone for good.",
	check: func(p *pass) {
		reportBindErrors(p, policy.RuleBrokenLink, "path",
			"create the symlink (jp-policy mount), fix its target, or remove the rule")
	},
}
