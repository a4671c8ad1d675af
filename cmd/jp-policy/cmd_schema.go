package main

import "errors"

// SchemaCmd is a placeholder until its issue lands.
type SchemaCmd struct{}

// Run reports that the command is not built yet.
func (c *SchemaCmd) Run(g *Globals) error {
	return fail(exitUsage, errors.New("schema: not implemented yet"))
}
