package lint

import (
	"fmt"

	"github.com/jp-policy/jp-policy/internal/diag"
)

var ruleJP108 = Rule{
	ID: "JP108", Name: "config-sensitive-write", Severity: diag.Error,
	Title: "`write = true` on a sensitive config path",
	Description: "RFD 078 keeps a list of config paths where a write can compromise safety, starting with `conversation.tools.*.access`: a tool allowed to write there can rewrite its own access policy. " +
		"A rule whose path covers such a path (for example `conversation.tools`) or lies inside one counts. JP rejects `write = true` on them at load.",
	Fix:   "If the tool really must write there, acknowledge it with `write = \"insecure_allow\"` (and consider `apply = \"ask\"`); otherwise narrow the path or drop `write`.",
	check: checkConfigSensitiveWrite,
}

func checkConfigSensitiveWrite(p *pass) {
	for _, t := range p.st.sorted {
		if t.Access == nil {
			continue
		}
		for _, r := range t.Access.Config {
			if b, ok := r.Write.(bool); !ok || !b {
				continue
			}
			s, ok := sensitiveConfigPath(r.Path)
			if !ok {
				continue
			}
			p.report(p.valueOf(r.Keys, "write", r.Pos),
				fmt.Sprintf("tool %q grants write = true on config path %q, which reaches the sensitive path %q", t.Name, r.Path, s),
				"use write = \"insecure_allow\" to acknowledge this grant, or narrow the path")
		}
	}
}
