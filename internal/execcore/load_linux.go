//go:build linux

package execcore

import (
	"os"
	"path/filepath"

	"github.com/jp-policy/jp-policy/internal/execplan"
	"github.com/jp-policy/jp-policy/internal/jpdirs"
)

func handOff(why error) error { return &handOver{why: why} }

// load finds the workspace root, reads and verifies tool's pinned exec
// plan, and checks that the artifact is current: everything the fast
// path needs before it decides. Any failure hands over (the full path
// reports it).
func load(o *Options) (*execplan.Plan, string, error) {
	var root string
	var err error
	if o.Workspace == "" {
		root, err = jpdirs.FindRoot(".")
	} else if root, err = filepath.Abs(o.Workspace); err == nil {
		root, err = filepath.EvalSymlinks(root)
	}
	if err != nil {
		return nil, "", handOff(err)
	}
	policyDir := filepath.Join(root, ".jp", "policy")
	if err := CheckRealDirs(root, filepath.Dir(policyDir), policyDir); err != nil {
		return nil, "", handOff(err)
	}
	artifactPath := filepath.Join(policyDir, "policy.json")
	dataDir, err := jpdirs.UserDataDir(os.Getenv)
	if err != nil {
		return nil, "", handOff(err)
	}
	pin, sum, err := execplan.PinTool(dataDir, root, artifactPath, o.Tool)
	if err != nil {
		return nil, "", handOff(err)
	}
	if sum == "" {
		return nil, "", handOffMsg("the pin lists no exec plan for the tool")
	}
	pl, err := ReadPlan(artifactPath, o.Tool, sum)
	if err != nil {
		return nil, "", handOff(err)
	}
	if pl.Root != root {
		return nil, "", handOffMsg("the plan was compiled for another workspace root")
	}
	if !pl.Enabled || pl.Fast == nil {
		return nil, "", handOffMsg("the tool is disabled or needs the full path")
	}
	if err := VerifyCurrent(root, pin.Inputs); err != nil {
		return nil, "", handOff(err)
	}
	return pl, root, nil
}
