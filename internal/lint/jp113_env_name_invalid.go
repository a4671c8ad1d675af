package lint

import (
	"fmt"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/policy"
)

var ruleJP113 = Rule{
	ID: "JP113", Name: "env-name-invalid", Severity: diag.Error,
	Title: "An env rule name is empty, or has `*` anywhere but at the end",
	Description: "An env rule names one variable exactly, or a prefix with a single trailing `*` (`AWS_*`). There are no other wildcards (RFD 076): " +
		"`*_TOKEN` or `A*B` would match nothing, and an empty name is meaningless. JP rejects such rules at load.",
	Fix:   "Use an exact name (`GITHUB_TOKEN`) or a prefix ending in `*` (`GITHUB_*`), one rule per pattern.",
	check: checkEnvNameInvalid,
}

func checkEnvNameInvalid(p *pass) {
	for _, t := range p.st.sorted {
		if t.Access == nil {
			continue
		}
		for _, r := range t.Access.Env {
			if err := policy.ValidateEnvName(r.Name); err != nil {
				p.report(p.valueOf(r.Keys, "name", r.Pos), fmt.Sprintf("env rule of tool %q: %v", t.Name, err),
					"use an exact variable name, or a prefix with one trailing '*'")
			}
		}
	}
}
