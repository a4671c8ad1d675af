package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/jp-policy/jp-policy/internal/completion"
	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/lint"
)

// CompletionCmd prints a completion script generated from this very
// command line's kong model, so new subcommands and flags complete
// without anyone touching the completion package.
type CompletionCmd struct {
	// A pointer, so kong leaves the enum alone when only --list-tools
	// is given.
	Shell *string `arg:"" optional:"" enum:"bash,zsh,fish" help:"Shell to print the script for: ${enum}."`

	// The scripts call this to complete --tool; see completion.ListTools.
	ListTools bool   `name:"list-tools" hidden:"" help:"Print the tool names of the workspace, one a line."`
	Workspace string `hidden:"" type:"path" help:"Workspace root for --list-tools."`
}

// Run writes the script (or the tool names) to stdout.
func (c *CompletionCmd) Run(g *Globals, ctx *kong.Context) error {
	if c.ListTools {
		return c.listTools(g)
	}
	if c.Shell == nil {
		return fail(exitUsage, errors.New("completion: name a shell: "+strings.Join(completion.Shells, ", ")))
	}
	// Rule IDs are fixed in this binary, so the script carries them
	// (`completion:"rule"` on lint --ignore and rules ID).
	var ids []string
	for _, r := range lint.Rules() {
		ids = append(ids, r.ID)
	}
	tree, err := completion.FromKong(ctx.Model, completion.WithWords("rule", ids))
	if err != nil {
		return fail(exitIntern, err)
	}
	if err := completion.Write(g.Stdout, *c.Shell, tree); err != nil {
		return fail(exitIntern, err)
	}
	return nil
}

// listTools prints the merged config's tool names. It runs at every TAB,
// so it says nothing on failure: a broken config just completes nothing.
func (c *CompletionCmd) listTools(g *Globals) error {
	l, err := config.Load(config.Options{Workspace: c.Workspace})
	if err != nil {
		return fail(exitFail, nil)
	}
	names := make([]string, 0, len(l.Tools))
	for name := range l.Tools {
		names = append(names, name)
	}
	for _, name := range completion.ToolNames(names) {
		fmt.Fprintln(g.Stdout, name)
	}
	return nil
}
