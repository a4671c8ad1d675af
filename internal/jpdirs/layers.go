package jpdirs

import (
	"path/filepath"
	"strings"
)

// Extensions are the extensions JP tries, in order, when a conventional
// config file (config.toml, .jp.toml) is absent. jp-policy reads TOML and
// JSON; finding one of the others is an error rather than a silently
// missing layer.
var Extensions = []string{".toml", ".json", ".json5", ".yaml", ".yml"}

// WithExtensions lists base with each of Extensions appended, in order.
func WithExtensions(base string) []string {
	out := make([]string, len(Extensions))
	for i, ext := range Extensions {
		out[i] = base + ext
	}
	return out
}

// DotJPFiles lists the names a `.jp.*` config layer may have in dir, in
// the order the loader tries them.
func DotJPFiles(dir string) []string { return WithExtensions(filepath.Join(dir, ".jp")) }

// DirsDown lists root and every directory from it down to cwd (the
// directories whose `.jp.*` files JP loads when run from cwd); only root
// when cwd is outside the workspace.
func DirsDown(root, cwd string) []string {
	rel, err := filepath.Rel(root, cwd)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return []string{root}
	}
	dirs := []string{root}
	if rel == "." {
		return dirs
	}
	cur := root
	for part := range strings.SplitSeq(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		dirs = append(dirs, cur)
	}
	return dirs
}
