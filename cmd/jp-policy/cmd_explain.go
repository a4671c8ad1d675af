package main

import (
	"errors"
	"io"
	"slices"
	"strings"

	"github.com/jp-policy/jp-policy/internal/platform"

	"github.com/jp-policy/jp-policy/internal/compiler"
	"github.com/jp-policy/jp-policy/internal/policy"
	"github.com/jp-policy/jp-policy/internal/termstyle"
)

// ExplainCmd is `jp-policy explain`.
type ExplainCmd struct {
	Workspace string   `short:"w" help:"Workspace root (default: the nearest directory at or above the working directory that holds .jp/)." type:"path" placeholder:"DIR"`
	Cfg       []string `help:"Extra config applied last, read as JP reads --cfg: a file, a name in config_load_paths, @PATH, KEY=VALUE, KEY:=JSON or {JSON} (repeatable)." placeholder:"CFG" sep:"none"`
	Approvals string   `help:"Approvals store to use instead of JP's approvals.json." type:"path" placeholder:"FILE" sep:"none"`
	Tool      string   `short:"t" help:"Explain only this tool." placeholder:"TOOL"`
	Access    bool     `help:"Print only the tool's access object, exactly as a JP tool receives it (needs --tool)."`
	Platform  []string `help:"Show what the compiled manifests enforce on this platform: linux, darwin or windows (repeatable; default the platform this runs on)." enum:"linux,darwin,windows" placeholder:"OS" xor:"platform"`
	All       bool     `name:"all-platforms" help:"Show what is enforced on every platform a policy is compiled for (linux, darwin and windows)." xor:"platform"`
	Verbose   bool     `help:"List everything: the rules jp-policy adds (the minimal environment's variables) and every baseline clause, not only the ones that are degraded."`
	Format    string   `help:"Output format: text (wrapped to the terminal, or 80 columns) or json (docs/output.md)." enum:"text,json" default:"text"`
}

// Run compiles in memory (nothing is written, nobody is prompted) and
// prints the human view of the policy.
func (c *ExplainCmd) Run(g *Globals) error {
	if err := requireWorkspace(c.Workspace, exitUsage); err != nil {
		return err
	}
	opts := compiler.Options{
		Config:        configOptions(c.Workspace, c.Cfg),
		ApprovalsFile: c.Approvals,
		Generator:     "jp-policy " + version,
	}
	if c.Tool != "" {
		opts.Only = []string{c.Tool} // only the tool asked about is compiled
	}
	res, err := compiler.Build(opts)
	if err != nil {
		return compileError(g, err)
	}
	if c.Access {
		if c.Tool == "" {
			return fail(exitUsage, errors.New("explain --access needs --tool NAME"))
		}
		b, err := compiler.AccessJSON(res, c.Tool)
		if err != nil {
			return toolError(exitUsage, err)
		}
		_, err = g.Stdout.Write(b)
		return err
	}
	platforms := []platform.Platform{platform.Host}
	if !slices.Contains(compiler.Platforms, platform.Host) || c.All || c.Format == "json" {
		// JSON is for programs: every platform unless asked, as before.
		platforms = compiler.Platforms
	}
	if len(c.Platform) > 0 {
		platforms = nil
		for _, p := range slices.Compact(slices.Clone(c.Platform)) {
			platforms = append(platforms, platform.Platform(p))
		}
	}
	if c.Format == "json" {
		data, err := compiler.ExplainData(res, c.Tool, platforms)
		if err != nil {
			return toolError(exitUsage, err)
		}
		return g.writeJSON(data)
	}
	// The layout (wrapping) is decided here, once, for every line the
	// compiler writes.
	var b strings.Builder
	if err := compiler.ExplainWith(&b, res, c.Tool, compiler.ExplainOptions{Platforms: platforms, Verbose: c.Verbose}); err != nil {
		return toolError(exitUsage, err)
	}
	_, err = io.WriteString(g.Stdout, termstyle.Wrap(b.String(), termstyle.Width(g.Stdout, nil)))
	return err
}

func init() {
	// check without --access asks the compiler for the tool's policy, so
	// `check` and `exec` judge by the same compiled rules.
	compileToolPolicy = func(g *Globals, workspace, tool, approvalsFile string) (string, *policy.AccessPolicy, error) {
		if err := requireWorkspace(workspace, exitUsage); err != nil {
			return "", nil, err
		}
		res, acc, err := compiler.ToolPolicy(compiler.Options{
			Config:        configOptions(workspace, nil),
			ApprovalsFile: approvalsFile,
			Generator:     "jp-policy " + version,
		}, tool)
		if err != nil {
			// check's contract: a config that does not compile is a
			// config error (2), never a denial (1).
			if le, ok := errors.AsType[*compiler.LintError](err); ok {
				printFindings(g, le.Diagnostics, le.Root, le.Files)
				return "", nil, fail(exitUsage, err)
			}
			if res == nil {
				return "", nil, compileError(g, err)
			}
			return "", nil, toolError(exitUsage, err)
		}
		return res.Root, acc, nil
	}
}
