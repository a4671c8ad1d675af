package main

import "errors"

// LintCmd is a placeholder until its issue lands.
type LintCmd struct{}

// Run reports that the command is not built yet.
func (c *LintCmd) Run(g *Globals) error {
	return fail(exitUsage, errors.New("lint: not implemented yet"))
}
