package main

import "errors"

// URICmd is a placeholder until its issue lands.
type URICmd struct{}

// Run reports that the command is not built yet.
func (c *URICmd) Run(g *Globals) error {
	return fail(exitUsage, errors.New("uri: not implemented yet"))
}
