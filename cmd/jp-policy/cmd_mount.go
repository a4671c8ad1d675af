package main

import "errors"

// MountCmd is a placeholder until its issue lands.
type MountCmd struct{}

// Run reports that the command is not built yet.
func (c *MountCmd) Run(g *Globals) error {
	return fail(exitUsage, errors.New("mount: not implemented yet"))
}
