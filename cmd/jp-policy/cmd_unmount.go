package main

import (
	"fmt"

	"github.com/jp-policy/jp-policy/internal/mount"
)

// UnmountCmd removes what `mount` made (RFD D43 `--no-mount`).
type UnmountCmd struct {
	Workspace string `short:"w" placeholder:"DIR" help:"Workspace root (default: the nearest directory at or above the working directory that holds .jp/)." type:"path"`
	Config    string `placeholder:"FILE" help:"Config file the rules were appended to (default: <workspace>/.jp/config.toml)." type:"path"`
	Approvals string `placeholder:"FILE" help:"approvals.json (default: JP's user-workspace storage)." type:"path"`
	Name      string `arg:"" optional:"" help:"The mount's NAME (relative to the working directory); all mounts when omitted."`
}

// Run removes the mount's rules, approval and symlink.
func (c *UnmountCmd) Run(g *Globals) error {
	env, files, _, err := mountContext(c.Workspace, c.Config, c.Approvals, false)
	if err != nil {
		return fail(exitUsage, err)
	}
	res, err := mount.Unmount(c.Name, env, files)
	for _, w := range res.Warnings {
		fmt.Fprintf(g.Stderr, "jp-policy: %s\n", w)
	}
	if err != nil {
		return fail(exitUsage, err)
	}
	for _, rp := range res.RulePaths {
		fmt.Fprintf(g.Stdout, "unmounted %s\n", rp)
	}
	for _, b := range res.Blocks {
		what := b.RulePath
		if b.Default {
			what = `"." (workspace default)`
		}
		fmt.Fprintf(g.Stdout, "  removed rule %s of %s (%s:%d)\n", what, b.Tool, files.Config, b.Line)
	}
	for _, l := range res.Links {
		fmt.Fprintf(g.Stdout, "  removed symlink %s\n", l)
	}
	for _, d := range res.Dirs {
		fmt.Fprintf(g.Stdout, "  removed empty directory %s\n", d)
	}
	for _, r := range res.Revoked {
		fmt.Fprintf(g.Stdout, "  revoked approval of %s\n", r)
	}
	return nil
}
