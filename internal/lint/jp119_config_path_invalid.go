package lint

import (
	"fmt"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/policy"
)

var ruleJP119 = Rule{
	ID: "JP119", Name: "config-path-invalid", Severity: diag.Error,
	Title: "A config rule path is empty or malformed",
	Description: "`access.config` paths are dot-separated config keys (`assistant.model`), where `*` may only stand for one whole segment (RFD 078). " +
		"An empty path, an empty segment (`a..b`), or a partial wildcard (`tools.fs_*`) matches nothing JP will ever ask about.",
	Fix:   "Write the path as JP's config keys, dot-separated, with `*` only as a whole segment.",
	check: checkConfigPathInvalid,
}

func checkConfigPathInvalid(p *pass) {
	for _, t := range p.st.sorted {
		if t.Access == nil {
			continue
		}
		for _, r := range t.Access.Config {
			if err := policy.ValidateConfigPath(r.Path); err != nil {
				p.report(p.valueOf(r.Keys, "path", r.Pos), fmt.Sprintf("config rule of tool %q: %v", t.Name, err),
					"use dot-separated config keys, with '*' only as a whole segment")
			}
		}
	}
}
