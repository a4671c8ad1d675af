package lint

import (
	"fmt"

	"github.com/jp-policy/jp-policy/internal/diag"
)

var ruleJP102 = Rule{
	ID: "JP102", Name: "access-on-builtin-or-mcp", Severity: diag.Error,
	Title: "`access` on a tool whose merged `source` is builtin or MCP",
	Description: "Access policies are enforced on local subprocess tools only (RFD 076). Builtin tools run inside JP and MCP tools run on servers JP does not control, so an `access` table on them " +
		"would only create false confidence; JP rejects it at load. Because layers merge, the layer that set `source` and the one that added `access` can be different files; both are named.",
	Fix:   "Remove the `access` table, or make the tool a local tool (`source = \"local\"`) if it is one.",
	check: checkAccessOnBuiltinOrMCP,
}

func checkAccessOnBuiltinOrMCP(p *pass) {
	for _, t := range p.st.sorted {
		if t.Access == nil || !t.Source.Set {
			continue
		}
		kind := sourceKind(t.Source.Value)
		if kind == "local" {
			continue
		}
		label := "a builtin"
		if kind == "mcp" {
			label = "an MCP"
		}
		related := []diag.Related{{Pos: t.Source.Pos, Message: fmt.Sprintf("source = %q is set at", t.Source.Value)}}
		for _, o := range t.Source.Overrode {
			related = append(related, diag.Related{Pos: o, Message: "which overrides the source set at"})
		}
		p.report(t.Access.Pos,
			fmt.Sprintf("tool %q has `access` rules, but it is %s tool (source = %q); JP rejects access on builtin and MCP tools", t.Name, label, t.Source.Value),
			"remove this `access` table; only local tools run under an access policy",
			related...)
	}
}
