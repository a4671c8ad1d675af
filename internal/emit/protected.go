package emit

import (
	"github.com/jp-policy/jp-policy/internal/jpdirs"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// ProtectedPaths is jpdirs.ProtectedPaths for the workspace at root, each
// path canonicalised by package policy (the form grants are bound in; a
// dangling dotfile link adds the file it would create: WriteTargets), in a
// form for Tool.Protected.
func ProtectedPaths(root string, getenv func(string) string) []string {
	var out []string
	for _, p := range jpdirs.ProtectedPaths(root, getenv) {
		out = append(out, (*policy.StatCache)(nil).WriteTargets(p.Path)...)
	}
	return out
}
