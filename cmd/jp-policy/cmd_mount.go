package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/jp-policy/jp-policy/internal/approvals"
	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/jpdirs"
	"github.com/jp-policy/jp-policy/internal/mount"
	"github.com/jp-policy/jp-policy/internal/mountconsent"
)

// MountCmd links an external path into the workspace and grants tools
// access to it (RFD D43 `--mount`).
type MountCmd struct {
	Workspace   string `short:"w" placeholder:"DIR" help:"Workspace root (default: the nearest directory at or above the working directory that holds .jp/)." type:"path"`
	Config      string `placeholder:"FILE" help:"Config file to append the rules to (default: <workspace>/.jp/config.toml)." type:"path"`
	Approvals   string `placeholder:"FILE" help:"approvals.json to record the approval in (default: JP's user-workspace storage)." type:"path"`
	Yes         bool   `help:"Grant every enabled local tool without asking (for scripts)."`
	DryRun      bool   `name:"dry-run" help:"Check and print what would be done; change nothing."`
	Format      string `help:"Output format: text or json, one JSON object (docs/output.md)." enum:"text,json" default:"text"`
	JSON        bool   `name:"json" hidden:"" help:"Same as --format json."`
	Acknowledge string `name:"acknowledge-home" placeholder:"REASON" help:"For a read-write mount of the home directory (or a directory that holds it), which compile refuses otherwise (lint JP132): write REASON as the acknowledgement above the rule."`
	Spec        string `arg:"" name:"spec" help:"[TOOL:]NAME=PATH[:MODE]: NAME is the symlink (relative to the working directory), PATH the target, MODE ro (default), rx (read and execute: a toolchain), rw (needs TOOL:) or rwx (read, write and execute: a build cache whose binaries the tool runs; needs TOOL:)."`
}

// Run plans the mount, asks for confirmation when it names no tool, and
// applies it.
func (c *MountCmd) Run(g *Globals) error {
	c.JSON = c.JSON || c.Format == "json"
	p, env, files, err := c.prepare()
	if c.JSON && (err != nil || c.DryRun) {
		printJSON(g.Stdout, mount.NewReport(c.Spec, p, err))
	}
	if err != nil {
		return fail(exitUsage, err)
	}
	if c.DryRun {
		if !c.JSON {
			describeMount(g.Stdout, p, "would ")
		}
		return nil
	}
	if p.NeedsConfirmation() && !c.Yes {
		if err := confirmMount(g, p); err != nil {
			if c.JSON {
				printJSON(g.Stdout, mount.NewReport(c.Spec, p, err))
			}
			return fail(exitUsage, err)
		}
	}
	res, err := mount.Apply(p, env, files, time.Now())
	for _, w := range res.Warnings {
		fmt.Fprintf(g.Stderr, "jp-policy: %s\n", w)
	}
	if c.JSON {
		printJSON(g.Stdout, mount.NewReport(c.Spec, p, err))
	}
	if err != nil {
		return fail(exitUsage, err)
	}
	// Typing the mount was the consent to its grants: the compile it
	// asks for accepts exactly them without a terminal.
	if dataDir, derr := jpdirs.UserDataDir(os.Getenv); derr == nil {
		var entries []mountconsent.Entry
		for _, t := range p.Tools {
			entries = append(entries, mountconsent.Entry{Tool: t, Path: p.RulePath, Mode: string(p.Spec.Mode)})
		}
		if rerr := mountconsent.Record(dataDir, env.Root, entries); rerr != nil {
			fmt.Fprintf(g.Stderr, "jp-policy: warning: cannot record the mount for the next compile (it will ask for --accept-widening): %v\n", rerr)
		}
	}
	if !c.JSON {
		if res.CreatedTarget {
			fmt.Fprintf(g.Stdout, "created %s (it did not exist)\n", p.Target)
		}
		describeMount(g.Stdout, p, "")
		if res.ApprovalSaved {
			fmt.Fprintf(g.Stdout, "approval recorded in %s\n", files.Approvals)
		} else {
			fmt.Fprintf(g.Stdout, "approval already in %s\n", files.Approvals)
		}
		fmt.Fprintln(g.Stdout, mountNext(p))
	}
	return nil
}

func (c *MountCmd) prepare() (*mount.Plan, mount.Env, mount.Files, error) {
	sp, err := mount.Parse(c.Spec)
	if err != nil {
		return nil, mount.Env{}, mount.Files{}, err
	}
	partial := &mount.Plan{Spec: sp}
	env, files, tools, err := mountContext(c.Workspace, c.Config, c.Approvals, true)
	if err != nil {
		return partial, env, files, err
	}
	p, err := mount.Prepare(c.Spec, tools, env)
	if err == nil && c.Acknowledge != "" {
		for i := range p.Blocks {
			p.Blocks[i].Acknowledge = c.Acknowledge
		}
	}
	return p, env, files, err
}

// mountContext loads what mount and unmount share: the workspace, the
// merged tools (when withTools), and the files they write.
func mountContext(ws, cfgFile, approvalsFile string, withTools bool) (mount.Env, mount.Files, []mount.ToolInfo, error) {
	root, cwd, err := mountWorkspace(ws)
	if err != nil {
		return mount.Env{}, mount.Files{}, nil, &mount.Error{Kind: mount.KindConfig, Err: err, Message: err.Error()}
	}
	home, _ := os.UserHomeDir()
	env := mount.Env{Root: root, Cwd: cwd, Home: home}
	files := mount.Files{Config: cfgFile, Approvals: approvalsFile}
	if files.Config == "" {
		files.Config = filepath.Join(root, ".jp", "config.toml")
	}
	if files.Approvals == "" {
		if files.Approvals, err = approvals.DefaultPath(root, os.Getenv); err != nil {
			msg := "cannot locate approvals.json: " + err.Error()
			if _, ok := errors.AsType[*approvals.NoIDError](err); ok {
				msg = err.Error() // already says what is missing and how to fix it
			}
			return env, files, nil, &mount.Error{Kind: mount.KindConfig, Err: err, Message: msg}
		}
	}
	if !withTools {
		return env, files, nil, nil
	}
	l, err := config.Load(config.Options{Workspace: root, Cwd: cwd})
	if err != nil {
		return env, files, nil, &mount.Error{Kind: mount.KindConfig, Err: err, Message: err.Error()}
	}
	return env, files, mount.ToolsFromConfig(l), nil
}

func confirmMount(g *Globals, p *mount.Plan) error {
	f, ok := g.Stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return &mount.Error{Kind: mount.KindNotConfirmed, Message: fmt.Sprintf(
			"a mount without TOOL: grants %d tools (%s); confirm on a terminal or pass --yes",
			len(p.Tools), strings.Join(p.Tools, ", "))}
	}
	fmt.Fprintf(g.Stderr, "Mount %s -> %s (%s) for these enabled local tools:\n", p.RulePath, p.Target, p.Spec.Mode)
	for _, t := range p.Tools {
		fmt.Fprintf(g.Stderr, "  %s\n", t)
	}
	fmt.Fprint(g.Stderr, "Grant? [y/N] ")
	line, _ := bufio.NewReader(f).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
		return &mount.Error{Kind: mount.KindNotConfirmed, Message: "mount not confirmed; nothing changed"}
	}
	return nil
}

// mountNext says what to run after a mount: the compiled artifact is
// stale until compile runs again (exec refuses it), and check shows the
// new grant.
func mountNext(p *mount.Plan) string {
	next := "next: run `jp-policy compile` (exec refuses the stale artifact until then)"
	if len(p.Tools) > 0 {
		next += fmt.Sprintf(", then `jp-policy check --tool %s fs read %s`", p.Tools[0], p.RulePath)
	}
	return next
}

func describeMount(w io.Writer, p *mount.Plan, would string) {
	if would != "" && p.CreateTarget {
		fmt.Fprintf(w, "would create %s (it does not exist)\n", p.Target)
	}
	if p.LinkExists {
		fmt.Fprintf(w, "%skeep %s -> %s (already linked)\n", would, p.RulePath, p.Target)
	} else {
		fmt.Fprintf(w, "%slink %s -> %s\n", would, p.RulePath, p.Target)
	}
	for _, t := range p.Tools {
		if at, ok := p.Skipped[t]; ok {
			fmt.Fprintf(w, "  %s: already has a rule for %s (%s); left unchanged\n", t, p.RulePath, at)
			continue
		}
		var parts []string
		for _, r := range p.Rules[t] {
			parts = append(parts, describeRule(r))
		}
		fmt.Fprintf(w, "  %s: %s\n", t, strings.Join(parts, "; "))
	}
}

func describeRule(r mount.Rule) string {
	caps := "read"
	if r.Write {
		caps = "read, write"
	}
	if r.Execute {
		caps += ", execute"
	}
	switch {
	case r.WorkspaceDefault:
		return fmt.Sprintf("%q %s (keeps its workspace access)", r.Path, caps)
	case r.External:
		return fmt.Sprintf("%q external %s", r.Path, caps)
	}
	return fmt.Sprintf("%q %s", r.Path, caps)
}

func printJSON(w io.Writer, v any) {
	out, err := json.Marshal(v)
	if err != nil {
		out, _ = json.Marshal(map[string]any{"error": map[string]string{"kind": "io", "message": err.Error()}})
	}
	fmt.Fprintln(w, string(out))
}

// mountWorkspace returns the canonical workspace root (from --workspace,
// else the nearest ancestor of the working directory with a .jp
// directory) and the absolute working directory.
func mountWorkspace(flag string) (root, cwd string, err error) {
	if cwd, err = os.Getwd(); err != nil {
		return "", "", err
	}
	if flag == "" {
		root, err = jpdirs.FindRoot(cwd)
		return root, cwd, err
	}
	if root, err = filepath.Abs(flag); err != nil {
		return "", "", err
	}
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return "", "", err
	}
	if fi, err := os.Stat(filepath.Join(root, ".jp")); err != nil || !fi.IsDir() {
		return "", "", errors.New("--workspace " + flag + ": no .jp directory there")
	}
	return root, cwd, nil
}
