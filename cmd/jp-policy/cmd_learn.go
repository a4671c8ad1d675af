package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jp-policy/jp-policy/internal/atomicfile"
	"github.com/jp-policy/jp-policy/internal/compiler"
	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/emit/landlock"
	"github.com/jp-policy/jp-policy/internal/learn"
	"github.com/jp-policy/jp-policy/internal/lint"
	ll "github.com/jp-policy/jp-policy/internal/plan/landlock"
	"github.com/jp-policy/jp-policy/internal/policy"
	"github.com/jp-policy/jp-policy/internal/shquote"
	"github.com/jp-policy/jp-policy/internal/tomlpos"
)

// LearnCmd runs a command observed and proposes the least access that
// lets the same run succeed (docs/learn.md).
type LearnCmd struct {
	Tool      string   `short:"t" required:"" placeholder:"TOOL" help:"The tool whose access to propose (conversation.tools.TOOL.access)."`
	Workspace string   `short:"w" placeholder:"DIR" help:"Workspace root (default: the nearest directory at or above the working directory that holds .jp/)."`
	Write     bool     `help:"Append the proposal to the config file, keeping its comments and layout (only after a run that succeeded); the next compile shows it as a grant widening for review."`
	Config    string   `placeholder:"FILE" help:"Config file --write appends to (default: <workspace>/.jp/config.toml)." type:"path"`
	Collapse  int      `default:"16" placeholder:"N" help:"Grant a directory instead of the paths below it once N of them lie below it."`
	Command   []string `arg:"" passthrough:"" name:"command" help:"The command and its arguments, after --."`
}

// Run observes the command, prints the proposal and, with --write,
// appends it to the config file.
func (c *LearnCmd) Run(g *Globals) error {
	argv := c.Command
	if len(argv) > 0 && argv[0] == "--" {
		argv = argv[1:]
	}
	if len(argv) == 0 {
		return fail(exitUsage, errors.New("no command: jp-policy learn -t TOOL -- CMD [ARGS...]"))
	}
	if c.Collapse < 1 {
		return fail(exitUsage, fmt.Errorf("--collapse %d: must be at least 1", c.Collapse))
	}
	if err := learn.Supported(); err != nil {
		return fail(exitUsage, err)
	}
	root, cwd, err := mountWorkspace(c.Workspace)
	if err != nil {
		return fail(exitUsage, err)
	}
	if root, err = policy.CanonicalRoot(root); err != nil {
		return fail(exitUsage, err)
	}
	cfgFile := c.Config
	if cfgFile == "" {
		cfgFile = filepath.Join(root, ".jp", "config.toml")
	}
	// The config as JP reads it: which tool, and which workspace paths
	// lint JP116 wants kept read-only.
	l, err := config.Load(config.Options{Workspace: root, Cwd: cwd})
	if err != nil {
		return fail(exitUsage, err)
	}
	if _, ok := l.Tools[c.Tool]; !ok && c.Write {
		// Refuse before the run, not after it.
		return fail(exitUsage, fmt.Errorf("--write: no tool %q in this workspace's config; define it (source, command) first, or print the proposal without --write", c.Tool))
	}

	tmp, err := os.MkdirTemp("", "jp-policy-learn-")
	if err != nil {
		return fail(exitIntern, err)
	}
	defer os.RemoveAll(tmp)
	env := append(withoutVar(os.Environ(), "TMPDIR"), "TMPDIR="+tmp)
	cmdline := quoteArgv(argv)
	fmt.Fprintf(g.Stderr, "jp-policy learn: running %s observed and unconfined: learn is not a sandbox, run it only on a command you trust\n", sanitizeTerminal(cmdline))
	res, err := learn.Run(argv, cwd, env)
	if err != nil {
		return fail(exitIntern, fmt.Errorf("learn: %w", err))
	}

	if res.ForeignABI {
		fmt.Fprintln(g.Stderr, "jp-policy learn: the command made system calls of another ABI (x32, or i386 through int 0x80), which learn does not read: the proposal may miss what they did")
	}
	home, _ := os.UserHomeDir()
	if home != "" {
		if h, err := policy.CanonicalAbs(home); err == nil {
			home = h
		}
	}
	ctx := learn.Context{Root: root, Home: home, Collapse: c.Collapse, Baseline: baselineAllows, Protect: lint.WorkspacePoints(l), Existing: existingFS(root, cwd, c.Tool), NetDeclared: netDeclared(l, c.Tool)}
	for _, d := range []string{tmp, os.TempDir(), "/tmp", "/dev/shm", "/proc", "/sys", "/dev"} {
		if cd, err := policy.CanonicalAbs(d); err == nil {
			ctx.Scratch = append(ctx.Scratch, cd)
		}
	}
	p, err := learn.Propose(res.Obs, ctx)
	if err != nil {
		return fail(exitIntern, err)
	}
	text := learn.Render(c.Tool, p, home, fmt.Sprintf("`%s` (exit %d)", cmdline, res.ExitCode))
	fmt.Fprint(g.Stdout, text)

	if res.ExitCode != 0 {
		msg := fmt.Sprintf("the command exited %d: the proposal covers only what it did before it failed", res.ExitCode)
		if c.Write {
			msg += "; nothing written (--write needs a run that succeeded)"
		}
		return fail(exitFail, errors.New(msg))
	}
	if c.Write {
		if err := appendProposal(cfgFile, text); err != nil {
			return fail(exitIntern, err)
		}
		fmt.Fprintf(g.Stderr, "jp-policy learn: appended the proposal to %s; `jp-policy compile` shows what it grants\n", sanitizeTerminal(cfgFile))
	}
	var used []learn.Mount
	for _, m := range p.Mounts {
		if !m.System {
			used = append(used, m)
		}
	}
	if cmds := learn.MountCommands(c.Tool, used, home); len(cmds) > 0 {
		fmt.Fprintf(g.Stderr, "jp-policy learn: the run used %d path(s) outside the workspace; grant them with:\n", len(cmds))
		for _, m := range cmds {
			fmt.Fprintf(g.Stderr, "  %s\n", sanitizeTerminal(m))
		}
	}
	return nil
}

// baselineAllows is whether exec's Linux baseline grants op on p.
func baselineAllows(p string, op learn.Op) bool {
	have := landlock.BaselineRights(p)
	for _, cp := range op.Capabilities() {
		if have&ll.CapabilityRights[cp] == 0 {
			return false
		}
	}
	return true
}

// appendProposal appends text to the config file, keeping what is there,
// and proves the result is still TOML before it replaces the file.
func appendProposal(file, text string) error {
	old, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	var b strings.Builder
	b.Write(old)
	if len(old) > 0 {
		if !strings.HasSuffix(string(old), "\n") {
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	b.WriteString(text)
	out := []byte(b.String())
	// The parser JP's layers are read with (docs/config.md, "Parsing").
	if _, err := tomlpos.ParseTOML(file, out); err != nil {
		return fmt.Errorf("cannot append to %s: the result would not be valid TOML (%v); the file probably declares this tool's access.fs or access.net inline, so add the rules there by hand", file, err)
	}
	perm := os.FileMode(0o644)
	if fi, err := os.Stat(file); err == nil {
		perm = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(file, out, perm)
}

func quoteArgv(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = shquote.Quote(a)
	}
	return strings.Join(q, " ")
}

func withoutVar(env []string, name string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// sanitizeTerminal escapes control characters so that nothing a command
// line or path holds can move the cursor or retitle the terminal.
func sanitizeTerminal(s string) string { return learn.OneLine(s) }

// existingFS is tool's fs rules as learn.Context.Existing wants them:
// the access the compiler gives the tool (the engine `check` asks, from
// the config as read from cwd), without its external rules (mounts,
// which learn proposes apart). A tool with no fs rules of its own has
// none: its default policy is replaced, not widened, by the rules a
// proposal adds. nil when the config does not compile.
func existingFS(root, cwd, tool string) []policy.FsRule {
	res, ap, err := compiler.ToolPolicy(compiler.Options{Config: config.Options{Workspace: root, Cwd: cwd}}, tool)
	if err != nil || res.Artifact.Tools[tool].Defaulted {
		return nil
	}
	return slices.DeleteFunc(slices.Clone(ap.FS), func(r policy.FsRule) bool { return r.External })
}

// netDeclared reports whether tool's config already has net rules.
func netDeclared(l *config.Loaded, tool string) bool {
	t := l.Tools[tool]
	return t != nil && t.Access != nil && len(t.Access.Net) > 0
}
