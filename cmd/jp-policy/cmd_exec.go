package main

import "errors"

// ExecCmd is a placeholder until its issue lands.
type ExecCmd struct{}

// Run reports that the command is not built yet.
func (c *ExecCmd) Run(g *Globals) error {
	return fail(exitUsage, errors.New("exec: not implemented yet"))
}
