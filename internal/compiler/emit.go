package compiler

import (
	"bytes"
	"fmt"
	"path"
	"runtime"
	"sync"

	"github.com/jp-policy/jp-policy/internal/execplan"
	"github.com/jp-policy/jp-policy/internal/plan"
	ll "github.com/jp-policy/jp-policy/internal/plan/landlock"
	sbplan "github.com/jp-policy/jp-policy/internal/plan/sbpl"
	"github.com/jp-policy/jp-policy/internal/platform"

	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/emit"
	"github.com/jp-policy/jp-policy/internal/emit/landlock"
	"github.com/jp-policy/jp-policy/internal/emit/sbpl"
	"github.com/jp-policy/jp-policy/internal/emit/winjob"
	"github.com/jp-policy/jp-policy/internal/termstyle"
)

// emitter is one platform's manifest emitter: where its manifests go and
// how one tool's manifest is built. A manifest depends only on the tool
// (its compiled policy, the workspace root, the disk its rules bind to),
// never on the rest of the config: an edit elsewhere leaves it byte for
// byte the same, and the next compile links it instead of writing it.
type emitter struct {
	platform platform.Platform // artifact platform key
	name     string            // emitter name, for errors
	dir      string            // directory inside the artifact
	ext      string            // file name extension
	// build returns the manifest's bytes (which may be enc's buffer,
	// valid until enc is used again), its clauses and the manifest itself
	// (the exec plan is built from the Linux one).
	build func(et emit.Tool, sh *shared, enc *jsonEncoder) ([]byte, []plan.Clause, any, error)
}

// shared is what every tool's manifests share, stored once in the
// artifact (ll.Base, sbpl.Base): each tool's exec plan records the
// shared files' hashes (artifact.Tool.BaseSHA256), so exec reaches them
// through the pin's hash chain.
type shared struct {
	landlock *ll.Base
	sbpl     *sbpl.Base
	sums     map[platform.Platform]string // platform -> SHA-256 of its shared file
	// clauses are, per platform, the clauses every tool shares: a tool's
	// clause equal to the shared one of its ID is summarised once in
	// policy.json (Policy.Enforcement), not in every tool's entry.
	clauses map[platform.Platform]map[string]plan.Clause
}

// own is the clauses of a tool on plat that are not the shared ones.
func (sh *shared) own(plat platform.Platform, clauses []plan.Clause) []plan.Clause {
	out := make([]plan.Clause, 0, len(clauses))
	for _, c := range clauses {
		if bc, ok := sh.clauses[plat][c.ID]; !ok || bc != c {
			out = append(out, c)
		}
	}
	return out
}

// enforcement is the shared clauses' summary, for Policy.Enforcement.
func (sh *shared) enforcement() map[platform.Platform][]artifact.ClauseStatus {
	return map[platform.Platform][]artifact.ClauseStatus{
		platform.Linux:  artifact.Summarize(sh.landlock.Clauses),
		platform.Darwin: artifact.Summarize(sh.sbpl.Clauses()),
	}
}

// newShared builds the shared files for the developer directory the
// macOS profiles name; put stores one.
func newShared(devDir string, put func(rel string, data []byte) error) (*shared, error) {
	sh := &shared{landlock: landlock.NewBase(), sbpl: sbpl.NewBase(devDir), sums: map[platform.Platform]string{}}
	sh.clauses = map[platform.Platform]map[string]plan.Clause{}
	for plat, cl := range map[platform.Platform][]plan.Clause{platform.Linux: sh.landlock.Clauses, platform.Darwin: sh.sbpl.Clauses()} {
		sh.clauses[plat] = make(map[string]plan.Clause, len(cl))
		for _, c := range cl {
			sh.clauses[plat][c.ID] = c
		}
	}
	enc := encoders.Get().(*jsonEncoder)
	defer encoders.Put(enc)
	b, err := enc.compact(sh.landlock)
	if err != nil {
		return nil, err
	}
	for _, f := range []struct {
		plat platform.Platform
		rel  string
		data []byte
	}{{platform.Linux, ll.BaseFile, bytes.Clone(b)}, {platform.Darwin, sbplan.BaseFile, sh.sbpl.Text}} {
		if err := put(f.rel, f.data); err != nil {
			return nil, err
		}
		sh.sums[f.plat] = artifact.SHA256Hex(f.data)
	}
	return sh, nil
}

// emitters is every platform the compiler writes manifests for. Adding a
// platform is adding a row; each row's output is independent of the
// others.
var emitters = []emitter{
	{platform: platform.Darwin, name: "sbpl", dir: artifact.DirSBPL, ext: ".sb", build: func(et emit.Tool, sh *shared, _ *jsonEncoder) ([]byte, []plan.Clause, any, error) {
		b, c, err := sbpl.BuildWith(et, sh.sbpl)
		if err != nil {
			return nil, nil, nil, err
		}
		tail, ok := bytes.CutPrefix(b, sh.sbpl.Text)
		if !ok {
			return nil, nil, nil, fmt.Errorf("internal error: the profile of %s does not start with the shared base", et.Name)
		}
		return tail, c, nil, nil
	}},
	{platform: platform.Linux, name: "landlock", dir: artifact.DirLandlock, ext: ".json", build: func(et emit.Tool, sh *shared, enc *jsonEncoder) ([]byte, []plan.Clause, any, error) {
		m, err := landlock.Build(et)
		if err != nil {
			return nil, nil, nil, err
		}
		file, err := landlock.SplitBase(m, sh.landlock)
		if err != nil {
			return nil, nil, nil, err
		}
		b, err := enc.compact(file)
		return b, m.Clauses, m, err
	}},
	{platform: platform.Windows, name: "winjob", dir: artifact.DirWinJob, ext: ".json", build: func(et emit.Tool, _ *shared, enc *jsonEncoder) ([]byte, []plan.Clause, any, error) {
		m, err := winjob.Build(et)
		if err != nil {
			return nil, nil, nil, err
		}
		b, err := enc.compact(m)
		return b, m.Clauses, m, err
	}},
}

// file is one file of the artifact directory, relative to it.
type file struct {
	rel  string
	data []byte
}

// emitted is everything one tool contributes to the artifact directory.
type emitted struct {
	files    []file                              // manifests and the exec plan
	execHash string                              // SHA-256 of the exec plan, for the pin
	entry    []byte                              // the tool's value in policy.json's "tools"
	grants   []byte                              // the tool's entry in the grants record (artifact.ReviewedEntry)
	clauses  map[platform.Platform][]plan.Clause // platform -> full clauses, for explain
	err      error
}

// emitWindow bounds how many tools are in flight at once (emitted but not
// yet handed to the sink): their outputs are handed over in name order as
// soon as each is ready, so a large workspace is streamed to disk instead
// of held whole.
const emitWindow = 256

// emitAll runs the emitters for every tool, spread over the CPUs, and
// hands each tool's output to sink in name order. With put set, the
// workers write each tool's files through it as they are built (in
// parallel) and sink gets none. Each tool's output depends only on its
// own input and the order is fixed, so the bytes do not depend on
// scheduling. The sink (policy.json's entries, the grants record's hash)
// runs while the workers go on with the next tools: with chunks and a
// barrier between them, the workers waited for it, a twentieth of a
// 10,000-tool compile on one core.
func emitAll(p *artifact.Policy, sh *shared, names []string, tools map[string]emit.Tool, keepClauses bool, put func(rel string, data []byte) error, sink func(name string, e *emitted) error) error {
	workers := max(1, min(runtime.GOMAXPROCS(0), len(names)))
	results := make([]emitted, len(names))
	done := make([]chan struct{}, len(names))
	for i := range done {
		done[i] = make(chan struct{})
	}
	window := make(chan struct{}, emitWindow)
	work := make(chan int)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(work)
		for i := range names {
			select {
			case window <- struct{}{}:
			case <-stop:
				return
			}
			select {
			case work <- i:
			case <-stop:
				return
			}
		}
	})
	for range workers {
		wg.Go(func() {
			for i := range work {
				results[i] = emitTool(p, sh, names[i], tools[names[i]], keepClauses, put)
				close(done[i])
			}
		})
	}
	var err error
	for i, name := range names {
		<-done[i]
		if results[i].err != nil {
			err = fmt.Errorf("tool %s: %w", termstyle.Safe(name), results[i].err)
			break
		}
		if err = sink(name, &results[i]); err != nil {
			break
		}
		results[i] = emitted{} // let the tool's bytes go as soon as written
		<-window
	}
	close(stop)
	wg.Wait()
	return err
}

// emitTool runs every emitter for one tool, records their files and
// per-clause enforcement in the tool's artifact entry, and encodes the
// tool's exec plan and policy.json entry. It touches only this tool's
// entry of p, so tools can be emitted concurrently. With put set, each
// file is written through it as soon as it is built, straight from the
// encoder's buffer, and emitted.files stays empty.
func emitTool(p *artifact.Policy, sh *shared, name string, et emit.Tool, keepClauses bool, put func(rel string, data []byte) error) emitted {
	if !artifact.ToolFileNameOK(name) {
		return emitted{err: fmt.Errorf("tool name %q cannot be used as a file name", name)}
	}
	at := p.Tools[name]
	at.Manifests = make(map[platform.Platform]string, len(emitters))
	at.ManifestSHA256 = make(map[platform.Platform]string, len(emitters))
	at.Enforcement = make(map[platform.Platform][]artifact.ClauseStatus, len(emitters))
	at.BaseSHA256 = sh.sums
	var out emitted
	if put == nil {
		out.files = make([]file, 0, len(emitters)+2)
	}
	if keepClauses {
		out.clauses = make(map[platform.Platform][]plan.Clause, len(emitters))
	}
	enc := encoders.Get().(*jsonEncoder)
	defer encoders.Put(enc)
	keep := func(rel string, data []byte) error {
		if put != nil {
			return put(rel, data)
		}
		out.files = append(out.files, file{rel, bytes.Clone(data)})
		return nil
	}
	for _, em := range emitters {
		data, clauses, _, err := em.build(et, sh, enc)
		if err != nil {
			return emitted{err: fmt.Errorf("%s: %w", em.name, err)}
		}
		rel := path.Join(em.dir, name+em.ext)
		if err := keep(rel, data); err != nil {
			return emitted{err: err}
		}
		at.Manifests[em.platform] = rel
		at.ManifestSHA256[em.platform] = artifact.SHA256Hex(data)
		at.Enforcement[em.platform] = artifact.Summarize(sh.own(em.platform, clauses))
		if keepClauses {
			out.clauses[em.platform] = nonNil(clauses)
		}
	}
	// One small file per tool for exec, which then reads what one tool
	// needs whatever the size of the workspace (the pin holds its hash).
	plan := execPlan(p, name)
	if err := keep(execplan.PlanFile(name), plan); err != nil {
		return emitted{err: err}
	}
	out.execHash = artifact.SHA256Hex(plan)
	var err error
	if out.entry, err = marshalEntry(at); err != nil {
		return emitted{err: err}
	}
	if out.grants, err = artifact.ReviewedEntry(at); err != nil {
		return emitted{err: err}
	}
	if !keepClauses {
		// Compiling: the entry is what goes to disk. What only
		// policy.json needs is let go, so memory holds each tool's
		// grants (for the review and the pin), not its whole entry.
		at.Grants, at.Origins, at.Warnings, at.Enforcement = nil, nil, nil, nil
	}
	return out
}

func nonNil(c []plan.Clause) []plan.Clause {
	if c == nil {
		return []plan.Clause{}
	}
	return c
}
