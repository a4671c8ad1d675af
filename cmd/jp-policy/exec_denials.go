package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/jpdirs"
	"github.com/jp-policy/jp-policy/internal/learn"
	"github.com/jp-policy/jp-policy/internal/lint"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// runDenials is `jp-policy exec --denials`: the same exec, without the
// flag, run under learn's tracer, which records each call the sandbox
// refused; when the command ends, each is printed on stderr with the rule
// or mount that would allow it (docs/learn.md, "exec --denials"). The
// exec itself decides and enforces exactly as without the flag: the
// tracer only watches.
func (c *ExecCmd) runDenials(g *Globals) error {
	if err := learn.Supported(); err != nil {
		return fail(exitRefused, fmt.Errorf("--denials: %w", err))
	}
	// This command line without --denials (it comes before the "--" that
	// ends exec's flags; the command's own arguments are left alone).
	args := slices.Clone(os.Args)
	end := slices.Index(args, "--")
	if end < 0 {
		end = len(args)
	}
	i := slices.Index(args[:end], "--denials")
	if i < 0 {
		return fail(exitRefused, errors.New("--denials: the flag must come before the \"--\" that ends exec's flags"))
	}
	args = slices.Delete(args, i, i+1)
	self, err := os.Executable()
	if err != nil {
		return fail(exitRefused, err)
	}
	if !strings.Contains(args[0], "/") {
		// The tracer looks the program up on PATH: name this binary.
		args[0] = self
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fail(exitRefused, err)
	}
	res, err := learn.RunDenials(args, cwd, os.Environ())
	if err != nil {
		return fail(exitRefused, fmt.Errorf("--denials: %w", err))
	}
	if lines := denialLines(c.Tool, c.Workspace, cwd, res.Obs); len(lines) > 0 {
		for _, l := range lines {
			fmt.Fprintf(g.Stderr, "jp-policy: %s\n", l)
		}
	} else if res.ExitCode != 0 {
		fmt.Fprintln(g.Stderr, "jp-policy: --denials: no file access or connection was refused; the exit status is the command's own")
	}
	if res.ExitCode != 0 {
		return &exitError{Code: res.ExitCode}
	}
	return nil
}

// denialLines explains obs's refusals against the workspace.
func denialLines(tool, workspace, cwd string, obs learn.Observations) []string {
	root, _, err := mountWorkspace(workspace)
	if err == nil {
		root, err = policy.CanonicalRoot(root)
	}
	if err != nil {
		root = cwd
	}
	home, _ := os.UserHomeDir()
	if h, err := policy.CanonicalAbs(home); err == nil && home != "" {
		home = h
	}
	// Kernel trees no rule governs: a refusal there has no rule to name.
	ctx := learn.Context{Root: root, Home: home, Baseline: baselineAllows, Scratch: []string{"/proc", "/sys", "/dev"}}
	if l, err := config.Load(config.Options{Workspace: root, Cwd: cwd}); err == nil {
		ctx.Protect = lint.WorkspacePoints(l)
		ctx.Existing = existingFS(root, cwd, tool)
		for _, p := range lint.SensitiveAnchored(l, tool, home) {
			if c, err := policy.CanonicalAbs(p); err == nil {
				ctx.Secret = append(ctx.Secret, c)
			}
		}
	}
	// Every protected path, canonical where it resolves and as written
	// where it does not (policy's WriteTargets, as compile protects
	// them): one that could not be resolved must not drop out and leave
	// the hint free to propose a mount over it.
	sc := policy.NewStatCache()
	for _, p := range jpdirs.ProtectedPaths(root, os.Getenv) {
		for _, c := range sc.WriteTargets(p.Path) {
			ctx.Guarded = append(ctx.Guarded, learn.Guarded{Path: c, Why: p.What})
		}
	}
	return learn.DenialLines(tool, obs, ctx, home, 20)
}
