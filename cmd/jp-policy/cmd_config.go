package main

import (
	"errors"

	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/diag"
)

// ConfigCmd prints the merged tool config with where each value came from.
type ConfigCmd struct {
	Workspace string   `short:"w" help:"Workspace root (default: the nearest directory at or above the working directory that holds .jp/)." type:"path" placeholder:"DIR"`
	Cfg       []string `help:"Extra config applied last, read as JP reads --cfg: a file, a name in config_load_paths, @PATH, KEY=VALUE, KEY:=JSON or {JSON} (repeatable)." placeholder:"CFG" sep:"none"`
	Tool      string   `short:"t" help:"Only print this tool ('*' for the defaults table)." placeholder:"TOOL"`
	Origins   bool     `help:"Prefix every value with the file:line:col it was written at."`
	Format    string   `help:"Output format: text, or json (always with origins; docs/output.md)." enum:"text,json" default:"text"`
	JSON      bool     `name:"json" hidden:"" help:"Same as --format json."`
	// Conversation adds a stored conversation's layer, as compile's does.
	Conversation string `help:"Merge this stored conversation's config (jp-c<id>) as JP does when it continues it: after JP_CFG_ variables, before --cfg." placeholder:"ID"`
}

// Run loads the layers and prints them. Any error-level finding makes the
// exit code 2, after printing what could be merged.
func (c *ConfigCmd) Run(g *Globals) error {
	if err := requireWorkspace(c.Workspace, exitUsage); err != nil {
		return err
	}
	l, err := config.Load(config.Options{Workspace: c.Workspace, Cfg: c.Cfg, Conversation: c.Conversation})
	if err != nil {
		if list, ok := errors.AsType[diag.List](err); ok {
			root, files := "", map[string][]byte(nil)
			if l != nil {
				root, files = l.Root, l.Files
			}
			printFindings(g, list, root, files)
			return fail(exitUsage, nil)
		}
		return fail(exitUsage, err)
	}
	printFindings(g, l.Diagnostics, l.Root, l.Files)
	opts := config.PrintOptions{Tool: c.Tool, Origins: c.Origins}
	if c.Format == "json" || c.JSON {
		err = l.WriteJSON(g.Stdout, opts)
	} else {
		err = l.WriteText(g.Stdout, opts)
	}
	var unknown *config.UnknownToolError
	switch {
	case errors.As(err, &unknown):
		return fail(exitUsage, err)
	case err != nil:
		return fail(exitIntern, err)
	case l.Diagnostics.HasErrors():
		return fail(exitUsage, nil)
	}
	return nil
}
