package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/jp-policy/jp-policy/internal/learn"
	"github.com/jp-policy/jp-policy/internal/platform"
	"golang.org/x/net/bpf"

	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/launcher"
)

// ExecCmd is `jp-policy exec`: run a command under a tool's compiled
// policy. Everything is decided in package launcher.
type ExecCmd struct {
	Workspace  string `short:"w" placeholder:"DIR" xor:"source" help:"Workspace root (default: the nearest directory at or above the working directory that holds .jp/)."`
	Policy     string `placeholder:"FILE" xor:"source,default" help:"Compiled artifact (default: <workspace>/.jp/policy/policy.json)."`
	Default    bool   `xor:"default" help:"Run under RFD 075's default policy for the workspace (read-write workspace, no network, minimal environment), without an artifact."`
	Tool       string `short:"t" placeholder:"TOOL" help:"Tool whose policy applies."`
	BestEffort bool   `xor:"abi" help:"Run even when the kernel cannot enforce every clause, after printing what is degraded."`
	RequireABI int    `name:"require-abi" placeholder:"N" xor:"abi" help:"Refuse to run when the kernel's Landlock ABI is below N."`
	DryRun     bool   `help:"Print what would be enforced, degraded or cooperative-only, and run nothing."`
	// The fast parser (exec_fast.go) refuses --format, so a line with it
	// goes to kong; it starts from Format "text", kong's default.
	Format       string   `help:"With --dry-run: text or json (one JSON object; docs/output.md)." enum:"text,json" default:"text"`
	Masks        bool     `help:"Hide narrowed paths exactly in a private mount namespace (Linux, needs CAP_SYS_ADMIN); otherwise the compiled split enforces them."`
	Namespaces   bool     `xor:"ns" help:"Require the namespaced path even when no clause needs it (it is taken automatically when one does): build the tool's filesystem from its grants in private user, mount and network namespaces (Linux, unprivileged): exact masks, read-only .git/hooks, .git/config and .jp, metadata writes confined to write grants, and for tools with net rules a filtering proxy that decides every request by host, scheme, port and path. Refuses where unprivileged user namespaces are unavailable."`
	NoNamespaces bool     `name:"no-namespaces" xor:"ns" help:"Take the fast path (Landlock and seccomp alone) even when a clause needs namespaces; what that weakens is refused unless --best-effort, as where user namespaces are unavailable."`
	Quiet        bool     `short:"q" help:"After a failed run, print nothing of jp-policy's own (no hints on what the policy denied)."`
	LogNet       string   `name:"log-net" placeholder:"FILE" help:"With --namespaces: append one JSON line per proxy decision to FILE."`
	Denials      bool     `help:"When the command ends, print on stderr each file access or connection the policy refused, with the rule or mount that would allow it (Linux; the run is traced, so it is slower)."`
	Command      []string `arg:"" passthrough:"partial" placeholder:"CMD" help:"The command and its arguments, after --."`
}

// configuredSource is the merged `source` of tool in the workspace's
// config, or "" when it cannot be read. Only exec's error path uses it.
func configuredSource(workspace, tool string) string {
	l, err := config.Load(configOptions(workspace, nil))
	if err != nil || l == nil || l.Tools[tool] == nil {
		return ""
	}
	return strings.TrimSpace(l.Tools[tool].Source.Value)
}

func isLocalSource(src string) bool {
	return src == "local" || strings.HasPrefix(src, "local.")
}

// argv is the child's command line. Both parsers keep the "--" that ends
// the flags; drop exactly that one, so a later "--" still reaches the
// child.
func (c *ExecCmd) argv() []string {
	if len(c.Command) > 0 && c.Command[0] == "--" {
		return c.Command[1:]
	}
	return c.Command
}

// nsMode maps --namespaces / --no-namespaces to the launcher's choice.
func (c *ExecCmd) nsMode() launcher.NSMode {
	switch {
	case c.Namespaces:
		return launcher.NSRequire
	case c.NoNamespaces:
		return launcher.NSOff
	}
	return launcher.NSAuto
}

// Run hands the invocation to the launcher, which decides and runs it
// (fast or namespaced path alike), and maps its outcome to an exit code
// (exitcodes.go).
func (c *ExecCmd) Run(g *Globals) error {
	if c.Denials && !c.DryRun {
		return c.runDenials(g)
	}
	// --policy names its artifact; every other run needs a workspace, and
	// outside one a "run jp-policy compile" hint would only fail again.
	if c.Policy == "" {
		if err := requireWorkspace(c.Workspace, exitRefused); err != nil {
			return err
		}
	}
	if c.Format != "text" && !c.DryRun {
		return fail(exitRefused, errors.New("--format is for --dry-run: a run prints only what the command prints"))
	}
	argv := c.argv()
	var built *launcher.Built
	if c.Default {
		var err error
		if built, err = defaultPlan(c.Workspace, c.Tool, platform.Host); err != nil {
			return fail(exitRefused, err)
		}
	}
	// exec --denials started this exec under its tracer (learn.DenialsEnv):
	// the tool runs with the tracer's filter.
	var trace []bpf.RawInstruction
	if os.Getenv(learn.DenialsEnv) == "1" {
		var err error
		if trace, err = learn.TraceFilter(); err != nil {
			return fail(exitRefused, err)
		}
	}
	err := launcher.Run(&launcher.Options{
		Workspace:  c.Workspace,
		Artifact:   c.Policy,
		Built:      built,
		Trace:      trace,
		Tool:       c.Tool,
		BestEffort: c.BestEffort,
		RequireABI: c.RequireABI,
		DryRun:     c.DryRun,
		DryRunJSON: c.Format == "json",
		Masks:      c.Masks,
		NSMode:     c.nsMode(),
		LogNet:     c.LogNet,
		Argv:       argv,
		Environ:    os.Environ(),
		Platform:   platform.Host,
		Recompile:  &execRecompiler{stderr: g.Stderr},
	}, g.Stdout, g.Stderr)
	if err == nil {
		return nil
	}
	code := execExitCode(err)
	var notCompiled *launcher.ToolNotFoundError
	if errors.As(err, &notCompiled) && c.Policy == "" {
		if src := configuredSource(c.Workspace, c.Tool); src != "" && !isLocalSource(src) {
			// Compiling again would not help: say what is wrong.
			err = fmt.Errorf("tool %q has source %q: it runs inside its MCP server (or JP itself), not as a command, so it has no access policy and jp-policy exec cannot run it; only local tools are compiled", c.Tool, src)
		}
	}
	if ce, ok := errors.AsType[*launcher.ChildExit](err); ok {
		if !c.Quiet {
			for _, h := range ce.Hints {
				fmt.Fprintf(g.Stderr, "jp-policy: hint: %s\n", h) // denyhint escapes
			}
		}
		return fail(code, nil) // the child spoke for itself
	}
	return fail(code, err)
}
