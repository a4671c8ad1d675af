package compiler

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/jp-policy/jp-policy/artifact"
	"github.com/jp-policy/jp-policy/config"
)

// collectInputs lists everything the compiled result depends on, so exec
// can tell a stale artifact by hashing files instead of loading config:
// every layer read, every candidate layer that was absent, every symlink a
// rule path crosses (a retarget must invalidate), the approvals store,
// and the JP_CFG_* variables.
func collectInputs(l *config.Loaded, bound map[string][]boundRule, approvalsPath string) ([]artifact.Input, error) {
	seen := map[string]bool{}
	var ins []artifact.Input
	add := func(in artifact.Input) {
		key := in.Kind + "\x00" + in.Path
		if !seen[key] {
			seen[key] = true
			ins = append(ins, in)
		}
	}
	for _, layer := range l.Layers {
		if layer.Kind == config.LayerEnv {
			continue
		}
		sum, err := artifact.HashFile(layer.Path)
		if err != nil {
			return nil, err
		}
		add(artifact.Input{Kind: "layer", Path: layer.Path, SHA256: sum})
	}
	for _, c := range l.Candidates {
		add(artifact.Input{Kind: "candidate", Path: c})
	}
	for name, v := range l.Env {
		add(artifact.Input{Kind: "env", Path: name, SHA256: artifact.HashEnv(v)})
	}
	if approvalsPath == "" {
		// Without .jp/.id there is no approvals store; its appearance
		// must make the artifact stale.
		add(artifact.Input{Kind: "candidate", Path: filepath.Join(l.Root, ".jp", ".id")})
	} else {
		sum, err := artifact.HashFile(approvalsPath)
		if err != nil {
			return nil, err
		}
		add(artifact.Input{Kind: "approvals", Path: approvalsPath, SHA256: sum})
	}

	for _, rules := range bound {
		for _, br := range rules {
			for _, link := range symlinksOn(l.Root, br.Src.Path) {
				target, err := filepath.EvalSymlinks(link)
				if err != nil {
					target = ""
				}
				add(artifact.Input{Kind: "symlink", Path: link, Target: target})
			}
		}
	}
	sort.Slice(ins, func(i, j int) bool {
		if ins[i].Kind != ins[j].Kind {
			return ins[i].Kind < ins[j].Kind
		}
		return ins[i].Path < ins[j].Path
	})
	return ins, nil
}

// symlinksOn returns the absolute paths of the symlinks met while walking
// a rule path component by component from the root. It only records what
// exists; the decision about where the rule lands was made by BindRule.
func symlinksOn(root, rulePath string) []string {
	var links []string
	cur := root
	for _, part := range strings.Split(filepath.ToSlash(filepath.Clean(rulePath)), "/") {
		if part == "" || part == "." {
			continue
		}
		if part == ".." {
			return links
		}
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if err != nil {
			return links
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			links = append(links, cur)
			resolved, err := filepath.EvalSymlinks(cur)
			if err != nil {
				return links
			}
			cur = resolved
		}
	}
	return links
}
