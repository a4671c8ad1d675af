package lint

import (
	"fmt"

	"github.com/jp-policy/jp-policy/internal/diag"
)

var ruleJP126 = Rule{
	ID: "JP126", Name: "net-allows-nothing", Severity: diag.Warning, Suppressible: true,
	Title: "A tool's net rules allow nothing (no rule has `allow = true`)",
	Description: "A net rule without `allow = true` denies its destination, and everything no rule allows is denied already. " +
		"A list of such rules compiles to the same sandbox as no net rules at all (the macOS profile is byte for byte the one of a tool with no network), " +
		"so a rule meant to open a destination but missing `allow = true` silently opens nothing.",
	Fix:   "Add `allow = true` to the rules that should open a destination, or remove the net rules.",
	check: checkNetAllowsNothing,
}

func checkNetAllowsNothing(p *pass) {
	for _, t := range p.st.sorted {
		if t.Access == nil || len(t.Access.Net) == 0 {
			continue
		}
		allows := false
		for _, r := range t.Access.Net {
			allows = allows || (r.Allow != nil && *r.Allow)
		}
		if allows {
			continue
		}
		first := t.Access.Net[0]
		p.report(first.Pos,
			fmt.Sprintf("no net rule of tool %q has allow = true, so the compiled policy denies all network access, the same as no net rules", t.Name),
			"add allow = true to the rules that should open a destination, or remove the net rules")
	}
}
