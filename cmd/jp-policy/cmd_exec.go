package main

import (
	"errors"
	"os"
	"runtime"

	"github.com/jp-policy/jp-policy/launcher"
)

// ExecCmd is `jp-policy exec`: run a command under a tool's compiled
// policy. Everything is decided in package launcher.
type ExecCmd struct {
	Workspace  string   `short:"w" placeholder:"DIR" xor:"source" help:"Workspace root (default: the nearest directory above the current one that holds .jp)."`
	Policy     string   `placeholder:"FILE" xor:"source,default" help:"Compiled artifact (default: <workspace>/.jp/policy/policy.json)."`
	Default    bool     `xor:"default" help:"Run under RFD 075's default policy for the workspace (read-write workspace, no network, minimal environment), without an artifact."`
	Tool       string   `short:"t" placeholder:"NAME" help:"Tool whose policy applies."`
	BestEffort bool     `xor:"abi" help:"Run even when the kernel cannot enforce every clause, after printing what is degraded."`
	RequireABI int      `name:"require-abi" placeholder:"N" xor:"abi" help:"Refuse to run when the kernel's Landlock ABI is below N."`
	DryRun     bool     `help:"Print what would be enforced, degraded or cooperative-only, and run nothing."`
	Masks      bool     `help:"Hide narrowed paths exactly in a private mount namespace (Linux, needs CAP_SYS_ADMIN); otherwise the compiled split enforces them."`
	Command    []string `arg:"" passthrough:"" placeholder:"CMD" help:"The command and its arguments, after --."`
}

// Run hands the invocation to the launcher and maps its outcome to an
// exit code: a usage mistake is exitUsage, any refusal exitFail.
func (c *ExecCmd) Run(g *Globals) error {
	argv := c.Command
	// kong's passthrough keeps the "--" that ends the flags; drop exactly
	// that one, so a later "--" still reaches the child.
	if len(argv) > 0 && argv[0] == "--" {
		argv = argv[1:]
	}
	err := launcher.Run(&launcher.Options{
		Workspace:  c.Workspace,
		Artifact:   c.Policy,
		Default:    c.Default,
		Tool:       c.Tool,
		BestEffort: c.BestEffort,
		RequireABI: c.RequireABI,
		DryRun:     c.DryRun,
		Masks:      c.Masks,
		Argv:       argv,
		Environ:    os.Environ(),
		Platform:   runtime.GOOS,
		Recompile:  &execRecompiler{stderr: g.Stderr},
	}, g.Stdout, g.Stderr)
	if err == nil {
		return nil
	}
	var (
		usage *launcher.UsageError
		child *launcher.ChildExit
	)
	switch {
	case errors.As(err, &child):
		return fail(child.Code, nil)
	case errors.As(err, &usage):
		return fail(exitUsage, err)
	}
	return fail(exitFail, err)
}
