package main

import "errors"

// ApprovalsCmd is a placeholder until its issue lands.
type ApprovalsCmd struct{}

// Run reports that the command is not built yet.
func (c *ApprovalsCmd) Run(g *Globals) error {
	return fail(exitUsage, errors.New("approvals: not implemented yet"))
}
