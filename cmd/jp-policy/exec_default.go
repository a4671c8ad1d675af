package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/jp-policy/jp-policy/internal/emit"
	"github.com/jp-policy/jp-policy/internal/emit/landlock"
	"github.com/jp-policy/jp-policy/internal/emit/sbpl"
	"github.com/jp-policy/jp-policy/internal/emit/winjob"
	"github.com/jp-policy/jp-policy/internal/launcher"
	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/platform"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// defaultTool is RFD 075's default policy for a workspace as emitter
// input: the canonical root read-write as the single grant, network
// denied, the minimal environment, any program. tool only names it
// ("default" when empty).
func defaultTool(root, tool string) emit.Tool {
	if tool == "" {
		tool = "default"
	}
	return emit.Tool{
		Name:      tool,
		Root:      root,
		Access:    policy.Default(),
		Grants:    []plan.Grant{{Index: 0, Abs: root, Kind: plan.KindDir}},
		Defaulted: true,
		// A workspace that holds the home directory: its start-up files
		// stay read-only, as in a compiled default policy.
		Protected: emit.ProtectedPaths(root, os.Getenv),
	}
}

// defaultPlan builds exec --default's plan: the default policy of the
// workspace (ws, or the one the current directory is in), emitted for
// plat in-process, with no artifact. The launcher decides and runs it
// exactly as a compiled manifest.
func defaultPlan(ws, tool string, plat platform.Platform) (*launcher.Built, error) {
	var err error
	if ws == "" {
		if ws, err = launcher.FindWorkspace("."); err != nil {
			return nil, err
		}
	}
	root, err := filepath.Abs(ws)
	if err == nil {
		root, err = filepath.EvalSymlinks(root)
	}
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	t := defaultTool(root, tool)
	b := &launcher.Built{Tool: t.Name}
	switch plat {
	case platform.Linux:
		b.Linux, err = landlock.Build(t)
	case platform.Darwin:
		t.DeveloperDir, t.Home = sbpl.HostDeveloperDir(), sbpl.CanonicalHome(os.Getenv("HOME"))
		var prof []byte
		prof, _, err = sbpl.Build(t)
		b.ProfileText = string(prof)
		b.Env, b.Commands = plan.Env{Minimal: policy.MinimalEnv, Rules: t.Access.Env}, t.Access.Commands
	case platform.Windows:
		b.Job, err = winjob.Build(t)
	default:
		err = fmt.Errorf("--default: no sandbox for %s", plat)
	}
	return b, err
}
