package launcher

import (
	"github.com/jp-policy/jp-policy/emit"
	"github.com/jp-policy/jp-policy/emit/landlock"
	"github.com/jp-policy/jp-policy/policy"
)

// DefaultManifest builds, in-process and without an artifact, the Linux
// manifest of RFD 075's default policy for a workspace: the canonical
// root read-write as the single grant, network denied, the minimal
// environment, any program. tool only names the manifest ("default" when
// empty).
func DefaultManifest(root, tool string) (*landlock.Manifest, error) {
	if tool == "" {
		tool = "default"
	}
	return landlock.Build(emit.Tool{
		Name:      tool,
		Root:      root,
		Access:    policy.Default(),
		Grants:    []emit.Grant{{Index: 0, Abs: root, Kind: emit.KindDir}},
		Defaulted: true,
	})
}
