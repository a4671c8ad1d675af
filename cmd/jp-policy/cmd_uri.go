package main

import (
	"fmt"
	"os"

	"github.com/jp-policy/jp-policy/internal/attachuri"
)

// URICmd prints the attachment URI JP records for a path (RFD D03).
type URICmd struct {
	Workspace string `short:"w" placeholder:"DIR" help:"Workspace root (default: the nearest directory at or above the working directory that holds .jp/)." type:"path"`
	Format    string `help:"Output format: text (the URI) or json ({\"uri\":...,\"external\":...}; docs/output.md)." enum:"text,json" default:"text"`
	JSON      bool   `name:"json" hidden:"" help:"Same as --format json."`
	Path      string `arg:"" help:"File to compute the URI of (relative to the working directory, absolute, or ~/...)."`
}

// Run computes and prints the URI.
func (c *URICmd) Run(g *Globals) error {
	root, cwd, err := mountWorkspace(c.Workspace)
	if err != nil {
		return fail(exitUsage, err)
	}
	home, _ := os.UserHomeDir()
	res, err := attachuri.For(c.Path, cwd, root, home)
	if err != nil {
		return fail(exitUsage, err)
	}
	if c.JSON || c.Format == "json" {
		return g.writeJSON(res)
	}
	fmt.Fprintln(g.Stdout, res.URI)
	return nil
}
