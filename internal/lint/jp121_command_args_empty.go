package lint

import (
	"fmt"

	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/diag"
)

var ruleJP121 = Rule{
	ID: "JP121", Name: "command-args-empty", Severity: diag.Warning, Suppressible: true,
	Title: "A command rule with `args = []` can never run",
	Description: "`args` lists the argument lists a program may be run with (RFD 075): each entry must match the whole argument list element by element, and only a final `\"**\"` matches any rest; without `args` any arguments are allowed. " +
		"An empty list allows no invocation at all, which is rarely what the author meant: to deny a program, leave it out of `access.commands` once the map is declared.",
	Fix:   "List the allowed argument patterns (`args = [[\"status\"], [\"log\", \"**\"]]` allows `git status` and `git log` with any arguments), remove `args` to allow any, or remove the program.",
	check: checkCommandArgsEmpty,
}

func checkCommandArgsEmpty(p *pass) {
	eachCommand(p.st.sorted, func(t *config.Tool, prog string, c *config.CommandRule) {
		if c.Args == nil || len(c.Args) > 0 {
			return
		}
		p.report(p.valueOf(c.Keys, "args", c.Pos),
			fmt.Sprintf("command %q of tool %q has args = [], so it can never be run", prog, t.Name),
			"list the allowed argument patterns (a final \"**\" matches any rest), remove args to allow any, or remove the program")
	})
}
