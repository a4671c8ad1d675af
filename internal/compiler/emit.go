package compiler

import (
	"fmt"
	"github.com/jp-policy/jp-policy/internal/platform"
	"maps"
	"path"
	"runtime"
	"sync"

	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/emit"
	"github.com/jp-policy/jp-policy/internal/emit/landlock"
	"github.com/jp-policy/jp-policy/internal/emit/sbpl"
	"github.com/jp-policy/jp-policy/internal/emit/winjob"
)

// toolFileName guards manifest file names: a tool name becomes a path
// component, so anything but a plain identifier is refused rather than
// escaped.

// emitted is one tool's emitter output.
type emitted struct {
	files   map[string][]byte
	clauses map[platform.Platform][]emit.Clause // platform -> full clauses, for explain
	err     error
}

// emitAll runs the emitters for every tool, spread over the CPUs: each
// tool's output depends only on its own input, and results are merged in
// name order, so the bytes do not depend on scheduling.
func emitAll(p *artifact.Policy, names []string, tools map[string]emit.Tool) (map[string][]byte, map[string]map[platform.Platform][]emit.Clause, error) {
	results := make([]emitted, len(names))
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(names)); w++ {
		wg.Go(func() {
			for i := range work {
				r := &results[i]
				r.files = map[string][]byte{}
				r.clauses, r.err = emitTool(p, names[i], tools[names[i]], r.files)
			}
		})
	}
	for i := range names {
		work <- i
	}
	close(work)
	wg.Wait()
	files := map[string][]byte{}
	clauses := map[string]map[platform.Platform][]emit.Clause{}
	for i, name := range names {
		if results[i].err != nil {
			return nil, nil, fmt.Errorf("tool %s: %w", name, results[i].err)
		}
		maps.Copy(files, results[i].files)
		clauses[name] = results[i].clauses
	}
	return files, clauses, nil
}

// emitTool runs the three emitters for one tool and records their files
// and per-clause enforcement in the artifact. It touches only this tool's
// entry of p, so tools can be emitted concurrently.
func emitTool(p *artifact.Policy, name string, et emit.Tool, files map[string][]byte) (map[platform.Platform][]emit.Clause, error) {
	if !artifact.ToolFileNameOK(name) {
		return nil, fmt.Errorf("tool name %q cannot be used as a file name", name)
	}
	at := p.Tools[name]
	full := map[platform.Platform][]emit.Clause{}
	at.Manifests = map[platform.Platform]string{}
	at.ManifestSHA256 = map[platform.Platform]string{}

	profile, clauses, err := sbpl.Build(et)
	if err != nil {
		return nil, fmt.Errorf("sbpl: %w", err)
	}
	rel := path.Join(artifact.DirSBPL, name+".sb")
	files[rel] = profile
	at.Manifests[platform.Darwin] = rel
	at.ManifestSHA256[platform.Darwin] = artifact.SHA256Hex(profile)
	full[platform.Darwin] = nonNil(clauses)

	lm, err := landlock.Build(et)
	if err != nil {
		return nil, fmt.Errorf("landlock: %w", err)
	}
	lm.Digest = p.Digest
	b, err := marshalJSON(lm)
	if err != nil {
		return nil, err
	}
	rel = path.Join(artifact.DirLandlock, name+".json")
	files[rel] = b
	at.Manifests[platform.Linux] = rel
	at.ManifestSHA256[platform.Linux] = artifact.SHA256Hex(b)
	full[platform.Linux] = nonNil(lm.Clauses)

	wm, err := winjob.Build(et)
	if err != nil {
		return nil, fmt.Errorf("winjob: %w", err)
	}
	wm.Digest = p.Digest
	b, err = marshalJSON(wm)
	if err != nil {
		return nil, err
	}
	rel = path.Join(artifact.DirWinJob, name+".json")
	files[rel] = b
	at.Manifests[platform.Windows] = rel
	at.ManifestSHA256[platform.Windows] = artifact.SHA256Hex(b)
	full[platform.Windows] = nonNil(wm.Clauses)
	at.Enforcement = map[platform.Platform][]artifact.ClauseStatus{}
	for plat, cs := range full {
		at.Enforcement[plat] = artifact.Summarize(cs)
	}
	return full, nil
}

func nonNil(c []emit.Clause) []emit.Clause {
	if c == nil {
		return []emit.Clause{}
	}
	return c
}
