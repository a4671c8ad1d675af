package main

import "errors"

// CheckCmd is a placeholder until its issue lands.
type CheckCmd struct{}

// Run reports that the command is not built yet.
func (c *CheckCmd) Run(g *Globals) error {
	return fail(exitUsage, errors.New("check: not implemented yet"))
}
