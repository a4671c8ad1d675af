package lint

import (
	"fmt"

	"github.com/jp-policy/jp-policy/internal/diag"
)

func init() {
	register(&Rule{
		ID: "JP115", Name: "access-list-empty", Severity: diag.Warning, Suppressible: true,
		Title: "`access.fs`, `access.net` or `access.env` is declared but empty",
		Description: "Default-deny is per resource type and starts with the first rule (RFD 076): an empty list, including `{ strategy = \"replace\", value = [] }`, means unrestricted (within the workspace for fs). " +
			"It reads like \"nothing allowed\" and grants the opposite.",
		Fix:   "Add the rules the tool needs, or delete the empty declaration if unrestricted access is intended.",
		check: checkAccessListEmpty,
	})
}

func checkAccessListEmpty(p *pass) {
	for _, t := range sortedTools(p.l) {
		a := t.Access
		if a == nil {
			continue
		}
		lists := []struct {
			name  string
			n     int
			decl  []diag.Position
			means string
		}{
			{"fs", len(a.FS), a.FSDecl, "unrestricted file access within the workspace"},
			{"net", len(a.Net), a.NetDecl, "unrestricted network access"},
			{"env", len(a.Env), a.EnvDecl, "every environment variable the tool is given"},
		}
		for _, l := range lists {
			if l.n > 0 || len(l.decl) == 0 {
				continue
			}
			// The last declaration is the one that left the list empty.
			p.report(l.decl[len(l.decl)-1],
				fmt.Sprintf("access.%s of tool %q is declared but holds no rule, which means %s", l.name, t.Name, l.means),
				fmt.Sprintf("add the %s rules the tool needs, or remove the empty declaration if that is intended", l.name))
		}
	}
}
