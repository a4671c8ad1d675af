//go:build linux

package execcore

import (
	"path/filepath"

	"github.com/jp-policy/jp-policy/internal/execplan"
	"github.com/jp-policy/jp-policy/internal/scratchhome"
)

// withScratchHome gives the fast path's run its scratch HOME (package
// scratchhome) inside its private TMPDIR tmp, with the grants in fs that
// lie under the real home linked in; env is returned unchanged when a
// grant covers the real home, or on a failure (HOME then stays as the
// policy passed it: nothing is widened).
func withScratchHome(env []string, tmp string, fs []execplan.Rule) []string {
	grants := make([]string, 0, len(fs))
	for _, r := range fs {
		if r.Access != 0 {
			grants = append(grants, r.Path)
		}
	}
	links, keep := scratchhome.Plan(scratchhome.Home(env), grants)
	if keep {
		return env
	}
	dir := filepath.Join(tmp, scratchhome.Dir)
	if scratchhome.Make(dir, links) != nil {
		return env
	}
	return WithVar(env, "HOME", dir)
}
