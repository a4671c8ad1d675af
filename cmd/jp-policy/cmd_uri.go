package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/jp-policy/jp-policy/internal/attachuri"
)

// URICmd prints the attachment URI JP records for a path (RFD D03).
type URICmd struct {
	Workspace string `short:"w" placeholder:"DIR" help:"Workspace root (default: the nearest directory at or above the working directory that holds .jp/)." type:"path"`
	JSON      bool   `name:"json" help:"Print {\"uri\":...,\"external\":...}."`
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
	if c.JSON {
		out, _ := json.Marshal(res)
		fmt.Fprintln(g.Stdout, string(out))
		return nil
	}
	fmt.Fprintln(g.Stdout, res.URI)
	return nil
}
