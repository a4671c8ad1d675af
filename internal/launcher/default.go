package launcher

import (
	"fmt"
	"github.com/jp-policy/jp-policy/internal/platform"
	"os"
	"path/filepath"

	"github.com/jp-policy/jp-policy/internal/emit"
	"github.com/jp-policy/jp-policy/internal/emit/landlock"
	"github.com/jp-policy/jp-policy/internal/emit/sbpl"
	"github.com/jp-policy/jp-policy/internal/emit/winjob"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// DefaultTool is RFD 075's default policy for a workspace as emitter
// input: the canonical root read-write as the single grant, network
// denied, the minimal environment, any program. tool only names it
// ("default" when empty).
func DefaultTool(root, tool string) emit.Tool {
	if tool == "" {
		tool = "default"
	}
	return emit.Tool{
		Name:      tool,
		Root:      root,
		Access:    policy.Default(),
		Grants:    []emit.Grant{{Index: 0, Abs: root, Kind: emit.KindDir}},
		Defaulted: true,
		// A workspace that holds the home directory: its start-up files
		// stay read-only, as in a compiled default policy.
		Protected: emit.ProtectedPaths(root, os.Getenv),
	}
}

// DefaultManifest builds, in-process and without an artifact, the Linux
// manifest of RFD 075's default policy for a workspace root.
func DefaultManifest(root, tool string) (*landlock.Manifest, error) {
	return landlock.Build(DefaultTool(root, tool))
}

// prepareDefault fills p with the platform's sandbox for the default
// policy of the workspace o names (built in-process, no artifact) and
// returns the environment allowlist and commands that go with it.
func prepareDefault(o *Options, p *Plan) (env emit.Env, commands map[string]policy.CommandRule, fold bool, err error) {
	ws := o.Workspace
	if ws == "" {
		if ws, err = FindWorkspace("."); err != nil {
			return env, nil, false, err
		}
	}
	root, err := filepath.Abs(ws)
	if err == nil {
		root, err = filepath.EvalSymlinks(root)
	}
	if err != nil {
		return env, nil, false, fmt.Errorf("workspace: %w", err)
	}
	t := DefaultTool(root, o.Tool)
	if p.Tool == "" {
		p.Tool = t.Name
	}
	switch o.Platform {
	case platform.Linux:
		m, err := landlock.Build(t)
		if err != nil {
			return env, nil, false, err
		}
		p.Manifest = m
		return m.Env, m.Commands, false, nil
	case platform.Darwin:
		t.DeveloperDir, t.Home = sbpl.HostDeveloperDir(), sbpl.CanonicalHome(os.Getenv("HOME"))
		prof, _, err := sbpl.Build(t)
		if err != nil {
			return env, nil, false, err
		}
		p.ProfileText = string(prof)
		return emit.Env{Minimal: policy.MinimalEnv, Rules: t.Access.Env}, t.Access.Commands, false, nil
	case platform.Windows:
		j, err := winjob.Build(t)
		if err != nil {
			return env, nil, false, err
		}
		p.Job = j
		return j.Env, j.Commands, true, nil
	}
	return env, nil, false, fmt.Errorf("--default: no sandbox for %s", o.Platform)
}
