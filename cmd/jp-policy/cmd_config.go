package main

import "errors"

// ConfigCmd is a placeholder until its issue lands.
type ConfigCmd struct{}

// Run reports that the command is not built yet.
func (c *ConfigCmd) Run(g *Globals) error {
	return fail(exitUsage, errors.New("config: not implemented yet"))
}
