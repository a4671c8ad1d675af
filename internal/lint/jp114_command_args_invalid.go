package lint

import (
	"fmt"

	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/policy"
)

var ruleJP114 = Rule{
	ID: "JP114", Name: "command-args-invalid", Severity: diag.Error,
	Title: "`\"**\"` anywhere but last in a command's `args` pattern",
	Description: "In `access.commands.<program>.args` each entry is an argument pattern that must match the whole argument list, element by element; only a final `\"**\"` matches any remaining arguments (RFD 075), so `[[\"status\"]]` allows `git status` and not `git status --short`. " +
		"Elsewhere `\"**\"` has no meaning, and guessing one (\"any one argument\"? \"any run\"?) could allow invocations the author did not intend, so the rule is rejected.",
	Fix:   "Move `\"**\"` to the end of the pattern, or list the allowed argument lists one by one.",
	check: checkCommandArgs,
}

func checkCommandArgs(p *pass) {
	eachCommand(p.st.sorted, func(t *config.Tool, prog string, c *config.CommandRule) {
		if err := policy.ValidateCommandArgs(c.Args); err != nil {
			p.report(p.valueOf(c.Keys, "args", c.Pos), fmt.Sprintf("command %q of tool %q: %v", prog, t.Name, err),
				"put \"**\" only at the end of an args pattern")
		}
	})
}
