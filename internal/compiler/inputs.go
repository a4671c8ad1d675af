package compiler

import (
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/execplan"
	"github.com/jp-policy/jp-policy/internal/jpdirs"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// collectInputs lists everything the compiled result depends on, so exec
// can tell a stale artifact by hashing files instead of loading config:
// every layer read, every candidate layer that was absent, every symlink a
// rule path crossed as the canonicaliser resolved it (a retarget must
// invalidate), the approvals store, and the JP_CFG_* variables. A file
// input records its identity when it is settled at now
// (execplan.HashFileID), so exec need not hash it again while unchanged.
func collectInputs(l *config.Loaded, bound map[string][]boundRule, approvalsPath string, now func() time.Time) ([]artifact.Input, error) {
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
		sum, id, err := execplan.HashFileID(layer.Path, now)
		if err != nil {
			return nil, err
		}
		add(artifact.Input{Kind: "layer", Path: layer.Path, SHA256: sum, ID: id})
	}
	for _, c := range l.Candidates {
		add(artifact.Input{Kind: "candidate", Path: c})
	}
	for name, v := range l.Env {
		add(artifact.Input{Kind: "env", Path: name, SHA256: artifact.HashEnv(v)})
	}
	if approvalsPath == "" {
		// Without a .jp/.id JP accepts there is no approvals store: the
		// file appearing, or its id becoming one JP accepts, must make
		// the artifact stale. A rejected id's file is recorded with its
		// hash, a missing one as absent.
		idPath := filepath.Join(l.Root, ".jp", ".id")
		sum, err := artifact.HashFile(idPath)
		if err != nil {
			return nil, err
		}
		add(artifact.Input{Kind: "candidate", Path: idPath, SHA256: sum})
	} else {
		sum, id, err := execplan.HashFileID(approvalsPath, now)
		if err != nil {
			return nil, err
		}
		add(artifact.Input{Kind: "approvals", Path: approvalsPath, SHA256: sum, ID: id})
	}

	for _, rules := range bound {
		for _, br := range rules {
			links := br.Bound.Links
			if br.Drop {
				// A broken external link: when it is mended, the rule it
				// drops comes back, so its appearance must be a change.
				if lex, err := policy.LexicalRel(br.Src.Path); err == nil {
					links = []string{filepath.Join(l.Root, filepath.FromSlash(lex))}
				}
			}
			for _, link := range links {
				// The link's full resolution: a change anywhere along the
				// chain changes it.
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

// withProtectedEnv adds the variables that locate JP's user-level
// directories and the protected paths (jpdirs.ProtectedEnv) as "env"
// inputs, "" for an unset one, as exec compares them: run with another
// XDG_CONFIG_HOME, JP reads another global config, and with another HOME
// or JP_USER_DATA_DIR the protected directories are others, so exec sees
// the artifact stale.
func withProtectedEnv(ins []artifact.Input, lookup func(string) (string, bool)) []artifact.Input {
	for _, name := range jpdirs.ProtectedEnv() {
		if slices.ContainsFunc(ins, func(in artifact.Input) bool { return in.Kind == "env" && in.Path == name }) {
			continue
		}
		sum := ""
		if v, ok := lookup(name); ok {
			sum = artifact.HashEnv(v)
		}
		ins = append(ins, artifact.Input{Kind: "env", Path: name, SHA256: sum})
	}
	sort.SliceStable(ins, func(i, j int) bool {
		if ins[i].Kind != ins[j].Kind {
			return ins[i].Kind < ins[j].Kind
		}
		return ins[i].Path < ins[j].Path
	})
	return ins
}
