package main

import "errors"

// ExplainCmd is a placeholder until its issue lands.
type ExplainCmd struct{}

// Run reports that the command is not built yet.
func (c *ExplainCmd) Run(g *Globals) error {
	return fail(exitUsage, errors.New("explain: not implemented yet"))
}
