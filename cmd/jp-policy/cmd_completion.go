package main

import (
	"github.com/alecthomas/kong"

	"github.com/jp-policy/jp-policy/completion"
)

// CompletionCmd prints a completion script generated from this very
// command line's kong model, so new subcommands and flags complete
// without anyone touching the completion package.
type CompletionCmd struct {
	Shell string `arg:"" enum:"bash,zsh,fish" help:"Shell to print the script for: ${enum}."`
}

// Run writes the script to stdout.
func (c *CompletionCmd) Run(g *Globals, ctx *kong.Context) error {
	tree, err := completion.FromKong(ctx.Model)
	if err != nil {
		return fail(exitIntern, err)
	}
	if err := completion.Write(g.Stdout, c.Shell, tree); err != nil {
		return fail(exitIntern, err)
	}
	return nil
}
