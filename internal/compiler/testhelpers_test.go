package compiler

import (
	"sort"

	"github.com/jp-policy/jp-policy/internal/config"
)

// configOptionsFor loads root with a fixed environment, so tests never
// read the developer's own JP config.
func configOptionsFor(root string, env map[string]string) config.Options {
	return config.Options{
		Workspace: root,
		Cwd:       root,
		Getenv:    func(k string) string { return env[k] },
		Environ: func() []string {
			out := make([]string, 0, len(env))
			for k, v := range env {
				out = append(out, k+"="+v)
			}
			sort.Strings(out)
			return out
		},
	}
}
