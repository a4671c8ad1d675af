package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/jp-policy/jp-policy/internal/lint"
)

// RulesCmd lists the lint rule catalogue or describes one rule.
type RulesCmd struct {
	ID     string `arg:"" optional:"" placeholder:"ID" completion:"rule" help:"A rule ID such as JP101; omit to list every rule."`
	Format string `help:"Output format: text, or json (the catalogue as an array of rules, or the one rule as an object; docs/output.md)." enum:"text,json" default:"text"`
	JSON   bool   `name:"json" hidden:"" help:"Same as --format json."`
}

// Run prints the catalogue.
func (c *RulesCmd) Run(g *Globals) error {
	asJSON := c.Format == "json" || c.JSON
	if c.ID != "" {
		r, ok := lint.Lookup(c.ID)
		if !ok {
			return fail(exitUsage, fmt.Errorf("unknown rule %q (`jp-policy rules` lists them)", c.ID))
		}
		if asJSON {
			return g.writeJSON(r)
		}
		fmt.Fprint(g.Stdout, lint.Describe(r))
		return nil
	}
	rules := lint.Rules()
	if asJSON {
		return g.writeJSON(rules)
	}
	tw := tabwriter.NewWriter(g.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSEVERITY\tSUPPRESSIBLE\tTITLE")
	for _, r := range rules {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Severity, yesNo(r.Suppressible), r.Title)
	}
	return tw.Flush()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
