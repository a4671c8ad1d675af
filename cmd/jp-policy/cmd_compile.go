package main

import "errors"

// CompileCmd is a placeholder until its issue lands.
type CompileCmd struct{}

// Run reports that the command is not built yet.
func (c *CompileCmd) Run(g *Globals) error {
	return fail(exitUsage, errors.New("compile: not implemented yet"))
}
