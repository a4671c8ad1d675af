package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/jp-policy/jp-policy/internal/lint"
)

// RulesCmd lists the lint rule catalogue or describes one rule.
type RulesCmd struct {
	ID   string `arg:"" optional:"" help:"A rule ID such as JP101; omit to list every rule."`
	JSON bool   `help:"Print the catalogue (or the rule) as JSON."`
}

// Run prints the catalogue.
func (c *RulesCmd) Run(g *Globals) error {
	if c.ID != "" {
		r, ok := lint.Lookup(c.ID)
		if !ok {
			return fail(exitUsage, fmt.Errorf("unknown rule %q (`jp-policy rules` lists them)", c.ID))
		}
		if c.JSON {
			return writeJSON(g, r)
		}
		fmt.Fprint(g.Stdout, lint.Describe(r))
		return nil
	}
	rules := lint.Rules()
	if c.JSON {
		return writeJSON(g, rules)
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

func writeJSON(g *Globals, v any) error {
	enc := json.NewEncoder(g.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
