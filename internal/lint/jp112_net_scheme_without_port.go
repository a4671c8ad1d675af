package lint

import (
	"fmt"

	"github.com/jp-policy/jp-policy/internal/diag"
)

var ruleJP112 = Rule{
	ID: "JP112", Name: "net-scheme-without-port", Severity: diag.Error,
	Title: "A net rule names a scheme with no default port and gives no port",
	Description: "Without `port`, a net rule matches the scheme's default port (RFD 076). Schemes other than http, https, ws, wss and ftp have none, " +
		"so the rule could never match and the tool would be denied what the author meant to allow; JP rejects it at load.",
	Fix:   "Add `port = N` to the rule.",
	check: checkNetSchemeWithoutPort,
}

func checkNetSchemeWithoutPort(p *pass) {
	for _, t := range p.st.sorted {
		if t.Access == nil {
			continue
		}
		for _, r := range t.Access.Net {
			if !schemeWithoutPort(r) {
				continue
			}
			p.report(p.valueOf(r.Keys, "scheme", r.Pos),
				fmt.Sprintf("net rule of tool %q names scheme %q, which has no default port, and gives no port", t.Name, *r.Scheme),
				"add port = N to the rule")
		}
	}
}
