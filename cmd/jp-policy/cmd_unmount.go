package main

import "errors"

// UnmountCmd is a placeholder until its issue lands.
type UnmountCmd struct{}

// Run reports that the command is not built yet.
func (c *UnmountCmd) Run(g *Globals) error {
	return fail(exitUsage, errors.New("unmount: not implemented yet"))
}
