package emit

import (
	"sort"
	"strings"

	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// CommandsClause describes a policy's `commands` table. how says what the
// platform leaves to the tool's own check when a table is present, which
// is the only part that differs between platforms.
func CommandsClause(cmds map[string]policy.CommandRule, how string) plan.Clause {
	if cmds == nil {
		return plan.Clause{ID: "commands", What: "any program may run", Status: plan.Enforced}
	}
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	what := "programs the tool may start: none"
	if len(names) > 0 {
		what = "programs the tool may start: " + strings.Join(names, ", ")
	}
	return plan.Clause{ID: "commands", What: what, Status: plan.Degraded, How: how}
}
