package lint

import (
	"fmt"

	"github.com/jp-policy/jp-policy/internal/diag"
)

var ruleJP109 = Rule{
	ID: "JP109", Name: "config-wildcard-not-map", Severity: diag.Error,
	Title: "A `*` in a config rule path where the config value is not a map",
	Description: "In `access.config` paths `*` matches one segment, and only where JP's config has user-chosen keys (a map such as `conversation.tools`). " +
		"On a struct the set of fields is fixed, so a wildcard would silently widen the grant to every field; JP rejects it at load. docs/rules.md lists the map paths jp-policy knows.",
	Fix:   "Name the fields one rule at a time instead of using `*`.",
	check: checkConfigWildcardNotMap,
}

func checkConfigWildcardNotMap(p *pass) {
	for _, t := range p.st.sorted {
		if t.Access == nil {
			continue
		}
		for _, r := range t.Access.Config {
			_, parent, bad := wildcardNotMap(r.Path)
			if !bad {
				continue
			}
			where := fmt.Sprintf("after %q", parent)
			if parent == "" {
				where = "at the top level"
			}
			p.report(p.valueOf(r.Keys, "path", r.Pos),
				fmt.Sprintf("config path %q of tool %q uses `*` %s, which is not a map", r.Path, t.Name, where),
				"list the fields explicitly, one rule each")
		}
	}
}
