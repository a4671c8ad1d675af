package lint

import (
	"fmt"

	"github.com/jp-policy/jp-policy/internal/diag"
)

var ruleJP126 = Rule{
	ID: "JP126", Name: "net-allows-nothing", Severity: diag.Warning, Suppressible: true,
	Title: "No net rule of a tool allows, and one does not say `allow` at all",
	Description: "A net rule without `allow = true` denies its destination, and everything no rule allows is denied already. " +
		"When no rule of a tool allows, its net rules compile to the same sandbox as no net rules at all (the macOS profile is byte for byte the one of a tool with no network). " +
		"Written with `allow = false`, that is a deliberate \"no network\" (JP's own check reads an absent list as unrestricted, so a deny rule is how a config says it to both layers); " +
		"a rule that leaves `allow` out was more likely meant to open its destination, and silently opens nothing.",
	Fix:   "Add `allow = true` to the rules that should open a destination, or write `allow = false` to say the rule denies.",
	check: checkNetAllowsNothing,
}

func checkNetAllowsNothing(p *pass) {
	for _, t := range p.st.sorted {
		if t.Access == nil {
			continue
		}
		var unsaid *diag.Position
		allows := false
		for i, r := range t.Access.Net {
			allows = allows || (r.Allow != nil && *r.Allow)
			if r.Allow == nil && unsaid == nil {
				unsaid = &t.Access.Net[i].Pos
			}
		}
		if allows || unsaid == nil {
			continue
		}
		p.report(*unsaid,
			fmt.Sprintf("net rule of tool %q does not say allow, and no rule of the tool allows, so the compiled policy denies all network access, the same as no net rules", t.Name),
			"add allow = true if the rule should open its destination, or allow = false to say it denies")
	}
}
