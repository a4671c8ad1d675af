//go:build linux

package launcher

import (
	"path"

	"github.com/jp-policy/jp-policy/internal/nsroot"
	"github.com/jp-policy/jp-policy/internal/plan/landlock"
	"github.com/jp-policy/jp-policy/internal/scratchhome"
)

// grantPaths are the paths of the rules in fs that grant anything.
func grantPaths(fs []landlock.PathRule) []string {
	var out []string
	for _, r := range fs {
		if len(r.Access) > 0 {
			out = append(out, r.Path)
		}
	}
	return out
}

// withScratchHome gives a fast-path run its scratch HOME (package
// scratchhome) inside its private TMPDIR tmp; env is returned unchanged
// when a grant covers the real home, or on a failure (HOME then stays as
// the policy passed it).
func withScratchHome(env []string, tmp string, fs []landlock.PathRule) []string {
	links, keep := scratchhome.Plan(scratchhome.Home(env), grantPaths(fs))
	if keep {
		return env
	}
	dir := path.Join(tmp, scratchhome.Dir)
	if scratchhome.Make(dir, links) != nil {
		return env
	}
	return WithVar(env, "HOME", dir)
}

// nsScratchHome adds the namespaced run's scratch HOME to spec: a private
// tmpfs at TMPDIR/.home holding a link to every grant under the real
// home (the grants are bound at their real paths in the new root).
func nsScratchHome(spec *nsroot.Spec, tmpdir string, fs []landlock.PathRule) {
	links, keep := scratchhome.Plan(scratchhome.Home(spec.Env), grantPaths(fs))
	if keep {
		return
	}
	dir := path.Join(tmpdir, scratchhome.Dir)
	spec.Tmpfs = append(spec.Tmpfs, dir)
	for _, l := range links {
		spec.Symlinks = append(spec.Symlinks, nsroot.Symlink{Target: l.Target, Path: path.Join(dir, l.Rel)})
	}
	spec.Env = WithVar(spec.Env, "HOME", dir)
}
