package compiler

import (
	"fmt"
	"path"
	"regexp"

	"github.com/jp-policy/jp-policy/artifact"
	"github.com/jp-policy/jp-policy/emit"
	"github.com/jp-policy/jp-policy/emit/landlock"
	"github.com/jp-policy/jp-policy/emit/sbpl"
	"github.com/jp-policy/jp-policy/emit/winjob"
)

// toolFileName guards manifest file names: a tool name becomes a path
// component, so anything but a plain identifier is refused rather than
// escaped.
var toolFileName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)

// emitTool runs the three emitters for one tool and records their files
// and per-clause enforcement in the artifact.
func emitTool(p *artifact.Policy, name string, et emit.Tool, files map[string][]byte) error {
	if !toolFileName.MatchString(name) {
		return fmt.Errorf("tool name %q cannot be used as a file name", name)
	}
	at := p.Tools[name]
	at.Enforcement = map[string][]emit.Clause{}
	at.Manifests = map[string]string{}
	at.ManifestSHA256 = map[string]string{}

	profile, clauses, err := sbpl.Build(et)
	if err != nil {
		return fmt.Errorf("sbpl: %w", err)
	}
	rel := path.Join(artifact.DirSBPL, name+".sb")
	files[rel] = profile
	at.Manifests["darwin"] = rel
	at.ManifestSHA256["darwin"] = artifact.SHA256Hex(profile)
	at.Enforcement["darwin"] = nonNil(clauses)

	lm, err := landlock.Build(et)
	if err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	lm.Digest = p.Digest
	b, err := marshalJSON(lm)
	if err != nil {
		return err
	}
	rel = path.Join(artifact.DirLandlock, name+".json")
	files[rel] = b
	at.Manifests["linux"] = rel
	at.ManifestSHA256["linux"] = artifact.SHA256Hex(b)
	at.Enforcement["linux"] = nonNil(lm.Clauses)

	wm, err := winjob.Build(et)
	if err != nil {
		return fmt.Errorf("winjob: %w", err)
	}
	wm.Digest = p.Digest
	b, err = marshalJSON(wm)
	if err != nil {
		return err
	}
	rel = path.Join(artifact.DirWinJob, name+".json")
	files[rel] = b
	at.Manifests["windows"] = rel
	at.ManifestSHA256["windows"] = artifact.SHA256Hex(b)
	at.Enforcement["windows"] = nonNil(wm.Clauses)
	return nil
}

func nonNil(c []emit.Clause) []emit.Clause {
	if c == nil {
		return []emit.Clause{}
	}
	return c
}
