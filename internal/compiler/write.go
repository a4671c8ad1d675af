package compiler

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/platform"

	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/emit"
	"github.com/jp-policy/jp-policy/internal/jpdirs"
)

func defaultOutDir(root string) string {
	return filepath.Join(root, filepath.FromSlash(artifact.DefaultDir))
}

const gitignore = "# Written by jp-policy compile: this directory holds machine-local,\n# absolute paths and must not be committed.\n*\n"

// marshalJSON is the JSON encoding of what compile prints for people
// (the artifact's files are compact, compactJSON): two-space indent, sorted map keys (encoding/json), no HTML escaping (so
// paths with & or < stay readable), and a final newline.
func marshalJSON(v any) ([]byte, error) {
	return encodeJSON(v, "")
}

// encodeJSON is marshalJSON for a value that sits at a depth of
// len(prefix)/2 inside a document: its lines after the first start with
// prefix, exactly as encoding/json indents it in place.
func encodeJSON(v any, prefix string) ([]byte, error) {
	e := encoders.Get().(*jsonEncoder)
	defer encoders.Put(e)
	b, err := e.encode(v, prefix)
	return bytes.Clone(b), err
}

// encode is encodeJSON into e's own buffer: the bytes are valid until e
// is used again (a compile writes most documents once and drops them, so
// copying each out of the pooled buffer was a fifth of all it allocated).
func (e *jsonEncoder) encode(v any, prefix string) ([]byte, error) {
	e.buf.Reset()
	if err := e.enc.Encode(v); err != nil {
		return nil, err
	}
	e.out = appendIndent(e.out[:0], e.buf.Bytes(), prefix, "  ")
	return e.out, nil
}

// compactJSON is the encoding of the artifact's files: compact, sorted
// map keys (encoding/json), no HTML escaping (so paths with & or < stay
// as written), and a final newline.
func compactJSON(v any) ([]byte, error) {
	e := encoders.Get().(*jsonEncoder)
	defer encoders.Put(e)
	b, err := e.compact(v)
	return bytes.Clone(b), err
}

// compact is compactJSON into e's own buffer: the bytes are valid until
// e is used again.
func (e *jsonEncoder) compact(v any) ([]byte, error) {
	e.buf.Reset()
	if err := e.enc.Encode(v); err != nil {
		return nil, err
	}
	return e.buf.Bytes(), nil
}

// Why pooled encoders: a compile encodes five documents per tool; a new
// encoder and buffers each time regrew them from nothing, which was a
// third of all the bytes a 10,000-tool compile allocated.
type jsonEncoder struct {
	buf bytes.Buffer // compact, as encoding/json writes it
	out []byte       // indented (indent.go)
	enc *json.Encoder
}

var encoders = sync.Pool{New: func() any {
	e := &jsonEncoder{}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}}

// marshalEntry encodes one tool as it appears in policy.json's "tools"
// object.
func marshalEntry(t *artifact.Tool) ([]byte, error) {
	e := encoders.Get().(*jsonEncoder)
	defer encoders.Put(e)
	b, err := e.compact(t)
	return bytes.Clone(bytes.TrimSuffix(b, []byte("\n"))), err
}

// Why policy.json is stitched: encoded whole, a large workspace's
// policy.json is built in memory on one core. Its "tools" object is
// instead assembled from entries the emit workers encode in parallel, and
// streamed in name order to the file, byte for byte what encoding the
// whole would give (TestPolicyJSONStitchedIsMarshalled). Like the
// per-tool files it is compact: for a large workspace the indentation was
// a third of its bytes (read it with `jq .`, or `jp-policy explain`).

// toolsMarker is how an empty "tools" map appears in the encoded
// artifact. It cannot occur inside a JSON string, which escapes the
// quotes.
var toolsMarker = []byte(`"tools":{}`)

// policyWriter streams policy.json: everything but the tools, then one
// entry per tool in name order, then the rest, hashing as it goes.
type policyWriter struct {
	w    io.Writer
	h    hash.Hash
	tail []byte
	n    int
	err  error
}

func newPolicyWriter(w io.Writer, p *artifact.Policy) (*policyWriter, error) {
	shell := *p
	shell.Tools = map[string]*artifact.Tool{}
	b, err := compactJSON(&shell)
	if err != nil {
		return nil, err
	}
	i := bytes.Index(b, toolsMarker)
	if i < 0 {
		return nil, errors.New("internal error: no tools object in the encoded artifact")
	}
	h := sha256.New()
	pw := &policyWriter{w: io.MultiWriter(w, h), h: h, tail: b[i+len(toolsMarker)-1:]}
	pw.write(b[:i+len(toolsMarker)-1])
	return pw, pw.err
}

func (pw *policyWriter) write(b []byte) {
	if pw.err == nil {
		_, pw.err = pw.w.Write(b)
	}
}

// entry appends one tool; names must come in sorted order, as
// encoding/json sorts map keys.
func (pw *policyWriter) entry(name string, entry []byte) error {
	key, err := compactJSON(name)
	if err != nil {
		return err
	}
	if pw.n > 0 {
		pw.write([]byte(","))
	}
	pw.write(bytes.TrimSuffix(key, []byte("\n")))
	pw.write([]byte(":"))
	pw.write(entry)
	pw.n++
	return pw.err
}

// close writes the rest and returns the hex SHA-256 of the whole file.
func (pw *policyWriter) close() (string, error) {
	pw.write(pw.tail)
	return hex.EncodeToString(pw.h.Sum(nil)), pw.err
}

// writeArtifact emits every tool and writes the artifact's files: into
// opts.stage when compiling (streamed, never all in memory), else into
// res.Files. It records policy.json's and the exec plans' hashes for the
// pin.
func writeArtifact(opts *Options, res *Result, names []string, tools map[string]emit.Tool, devDir string) error {
	p := res.Artifact
	st := opts.stage
	var (
		put     func(rel string, data []byte) error
		policyW io.Writer
		policyB bytes.Buffer
	)
	if st != nil {
		put = st.put
		bw := bufio.NewWriterSize(st.policy, 1<<20)
		policyW = bw
		defer bw.Flush()
	} else {
		res.Files = map[string][]byte{}
		res.Clauses = map[string]map[platform.Platform][]plan.Clause{}
		policyW = &policyB
	}

	res.execHashes = make(map[string]string, len(names))
	grants, err := artifact.NewReviewedHasher(p.Root)
	if err != nil {
		return err
	}
	keep := put
	if keep == nil {
		keep = func(rel string, data []byte) error {
			res.Files[rel] = data
			return nil
		}
	}
	sh, err := newShared(devDir, keep)
	if err != nil {
		return err
	}
	p.Enforcement = sh.enforcement()
	pw, err := newPolicyWriter(policyW, p)
	if err != nil {
		return err
	}
	written := 0
	opts.progress("writing", 0, len(names))
	err = emitAll(p, sh, names, tools, st == nil, put, func(name string, e *emitted) error {
		written++
		if written%64 == 0 || written == len(names) {
			opts.progress("writing", written, len(names))
		}
		grants.Tool(name, e.grants)
		for _, f := range e.files {
			res.Files[f.rel] = f.data
		}
		if st == nil {
			res.Clauses[name] = e.clauses
		}
		res.execHashes[name] = e.execHash
		return pw.entry(name, e.entry)
	})
	if err != nil {
		return err
	}
	if res.policySHA256, err = pw.close(); err != nil {
		return err
	}
	res.grantsSHA256 = grants.Sum()
	if st == nil {
		res.Files[artifact.FileName] = policyB.Bytes()
		res.Files[".gitignore"] = []byte(gitignore)
		return nil
	}
	if err := policyW.(*bufio.Writer).Flush(); err != nil {
		return err
	}
	return st.put(".gitignore", []byte(gitignore))
}

// Why a stage inside the output directory: the Landlock emitter lists
// the directories it splits, which can include .jp/ (a rule narrowing
// something there). A staging directory beside the output, present while
// tools are emitted, would then appear in the manifests under a random
// name. Inside the output directory it is seen only by a rule that
// narrows inside .jp/policy itself, whose listing already depends on the
// previous artifact.

// stage is the artifact directory being written, inside the output
// directory until it is complete.
type stage struct {
	out    string // the output directory it will replace
	dir    string
	policy *os.File
	fs     *stageFS // the artifact directories, previous and staged
	unlock func()   // releases the pin's lock (lockOut); nil once released
}

// stagePrefix names a stage inside the output directory; a stage moved
// beside it for the swap is named "." + base(out) + base(stage).
const stagePrefix = ".compile-"

// lockOut takes the exclusive lock of the pin of the artifact opts
// writes in out, waiting for any other compile of it to finish. Holding
// it, no other compile of this artifact is running, so the stages a
// killed compile left behind are removed here. Where there is no lock
// (artifact.LockPinExclusive) nothing is removed: another compile may be
// using them.
func lockOut(opts *Options, root, out string) (unlock func(), err error) {
	dataDir, err := jpdirs.UserDataDir(opts.getenv)
	if err != nil {
		return nil, fmt.Errorf("cannot pin the artifact: %w", err)
	}
	ap, err := artifactPath(opts, root)
	if err != nil {
		return nil, err
	}
	unlock, held := artifact.LockPinExclusive(dataDir, root, ap)
	if held {
		sweepStages(out)
	}
	return unlock, nil
}

// sweepStages removes the stages of compiles that were killed: inside
// out, and moved beside it for the swap.
func sweepStages(out string) {
	for _, pattern := range []string{
		filepath.Join(out, stagePrefix+"*"),
		filepath.Join(filepath.Dir(out), "."+filepath.Base(out)+stagePrefix+"*"),
	} {
		leftovers, _ := filepath.Glob(pattern)
		for _, d := range leftovers {
			os.RemoveAll(d)
		}
	}
}

// artifactDirs are the directories of an artifact.
var artifactDirs = []string{artifact.DirSBPL, artifact.DirLandlock, artifact.DirWinJob, artifact.DirExec, artifact.DirShared}

func newStage(out string) (*stage, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	st, err := live.create(out)
	if err != nil {
		return nil, err
	}
	dir := st.dir
	for _, d := range artifactDirs {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			st.discard()
			return nil, err
		}
	}
	if st.policy, err = os.OpenFile(filepath.Join(dir, artifact.FileName), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644); err != nil {
		st.discard()
		return nil, err
	}
	if st.fs, err = newStageFS(out, dir, artifactDirs, ownerOf(st.policy)); err != nil {
		st.discard()
		return nil, err
	}
	return st, nil
}

// put writes one new file of the stage; it is safe for concurrent use
// (each file is written once, into a directory that exists). A file of
// the previous artifact that already holds data is linked instead
// (reuseFile): a recompile that changes a few tools creates only their
// files.
func (st *stage) put(rel string, data []byte) error {
	if path.Dir(rel) != "." && !stageDir(path.Dir(rel)) {
		return fmt.Errorf("internal error: %s is outside the artifact's directories", rel)
	}
	dir, name := path.Split(rel)
	if dir == "" {
		return writeNewFile(filepath.Join(st.dir, name), data)
	}
	return st.fs.write(path.Clean(dir), name, data)
}

// stageFiles stages an artifact built in memory.
func stageFiles(out string, files map[string][]byte) (*stage, error) {
	st, err := newStage(out)
	if err != nil {
		return nil, err
	}
	for rel, data := range files {
		if rel == artifact.FileName {
			_, err = st.policy.Write(data)
		} else {
			err = st.put(rel, data)
		}
		if err != nil {
			st.discard()
			return nil, err
		}
	}
	return st, nil
}

func stageDir(d string) bool {
	switch d {
	case artifact.DirSBPL, artifact.DirLandlock, artifact.DirWinJob, artifact.DirExec, artifact.DirShared:
		return true
	}
	return false
}

// discard removes the stage (a failed or refused compile) and releases
// the lock.
func (st *stage) discard() {
	if st.policy != nil {
		st.policy.Close()
	}
	if st.fs != nil {
		st.fs.close()
	}
	live.remove(st)
	os.RemoveAll(st.dir)
	if st.unlock != nil {
		st.unlock()
		st.unlock = nil
	}
}

// live is the stages this process is writing, for DiscardStages.
var live = liveStages{m: map[*stage]string{}}

type liveStages struct {
	mu sync.Mutex
	m  map[*stage]string // stage -> its directory now
}

// create makes a stage directory in out and records it in one step, so
// an interruption finds it recorded whenever it exists.
func (l *liveStages) create(out string) (*stage, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	dir, err := os.MkdirTemp(out, stagePrefix)
	if err != nil {
		return nil, err
	}
	st := &stage{out: out, dir: dir}
	l.m[st] = dir
	return st, nil
}

func (l *liveStages) remove(st *stage) {
	l.mu.Lock()
	delete(l.m, st)
	l.mu.Unlock()
}

// move renames the stage's directory to dir, atomically for
// DiscardStages, which finds it under one name or the other.
func (l *liveStages) move(st *stage, dir string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := os.Rename(st.dir, dir); err != nil {
		return err
	}
	st.dir = dir
	l.m[st] = dir
	return nil
}

// DiscardStages removes the staging directories of the compiles in
// progress in this process, for a process about to exit on a signal: a
// stage that was not put in place yet is dropped (the previous artifact
// and pin stay), one already swapped holds the previous artifact, which
// is garbage. Stages stay locked afterwards so none is moved again
// before the process exits. A compile killed outright (SIGKILL) leaves
// its stage to the next compile, which removes it (lockOut).
func DiscardStages() {
	live.mu.Lock()
	for _, dir := range live.m {
		// The emit workers may still be creating files in it, which
		// can make one pass fail on a directory that is no longer
		// empty; once a directory is gone nothing can be created in
		// it, so a few passes finish.
		for range 10 {
			if os.RemoveAll(dir) == nil {
				break
			}
		}
	}
}

// commit makes the stage durable and puts it in place of the output
// directory, so readers see the previous artifact or the new one, never a
// mixture; a failure before the swap leaves the previous artifact as it
// was. The previous artifact is removed in the background: the returned
// function waits for that and reports its error (the new artifact is in
// place either way).
func (st *stage) commit() (wait func() error, err error) {
	if err := st.policy.Close(); err != nil {
		return nil, err
	}
	st.policy = nil
	st.fs.close()
	if err := os.Chmod(st.dir, 0o755); err != nil {
		return nil, err
	}
	// Durable once, not per file (a 1,000-tool artifact is 4,000 files):
	// exec verifies every file it uses against hashes pinned outside the
	// workspace, so a file a crash left torn is refused, never applied.
	if err := syncTree(st.dir); err != nil {
		return nil, err
	}
	// Out of the output directory, beside it, then exchanged with it.
	parent := filepath.Dir(st.out)
	side := filepath.Join(parent, "."+filepath.Base(st.out)+filepath.Base(st.dir))
	if err := live.move(st, side); err != nil {
		if !errors.Is(err, syscall.EXDEV) && !errors.Is(err, syscall.EBUSY) {
			return nil, err
		}
		// The output directory is a mount point (a tmpfs, a CI or
		// container volume): it cannot be moved, so its entries are
		// replaced one by one from the stage inside it.
		if err := swapEntries(st.dir, st.out); err != nil {
			return nil, fmt.Errorf("replacing the files in %s: %w", st.out, err)
		}
		syncDir(st.out)
	} else {
		if err := swapDirs(side, st.out); err != nil {
			return nil, fmt.Errorf("replacing %s: %w", st.out, err)
		}
		syncDir(parent)
	}
	// The stage now holds the previous artifact.
	old := st.dir
	done := make(chan error, 1)
	go func() {
		err := removeTree(old)
		live.remove(st)
		done <- err
	}()
	return func() error {
		return <-done
	}, nil
}

// swapEntries puts the artifact staged in stage, a directory inside out,
// in place of the artifact in out, entry by entry: each directory is
// exchanged, then .gitignore and policy.json are renamed over theirs,
// policy.json last. A reader can find a mixture in between, which the
// pin check refuses and the reader looks again under the pin's lock, held
// by this compile until the new pin is written. The previous entries end
// in stage.
func swapEntries(stage, out string) error {
	for i, d := range artifactDirs {
		if err := swapDirs(filepath.Join(stage, d), filepath.Join(out, d)); err != nil {
			// Put back what was exchanged: the previous artifact stays
			// whole.
			for _, back := range artifactDirs[:i] {
				swapDirs(filepath.Join(stage, back), filepath.Join(out, back))
			}
			return err
		}
	}
	for _, f := range []string{".gitignore", artifact.FileName} {
		if err := os.Rename(filepath.Join(stage, f), filepath.Join(out, f)); err != nil {
			return err
		}
	}
	return nil
}

// removeTree removes a previous artifact: its directories in parallel
// (an unlink locks only its own directory), then the rest. A 10,000-tool
// artifact is 40,000 files, one unlink each.
func removeTree(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return os.RemoveAll(dir)
	}
	var wg sync.WaitGroup
	errs := make([]error, len(entries))
	sem := make(chan struct{}, 2)
	for i, e := range entries {
		if !e.IsDir() {
			continue
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			errs[i] = os.RemoveAll(filepath.Join(dir, e.Name()))
		})
	}
	wg.Wait()
	return errors.Join(append(errs, os.RemoveAll(dir))...)
}

// syncDir makes the renames in dir durable; a failure only weakens
// durability (a crash may bring back the previous artifact, whose pin no
// longer matches), so it is not an error.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// swapByRename is swapDirs without an atomic exchange: cur moves aside,
// next takes its place (in between, cur is absent and an exec reading it
// fails), and the previous content ends at next. A failure puts cur back.
func swapByRename(next, cur string) error {
	old := next + ".old"
	if err := os.Rename(cur, old); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		old = ""
	}
	if err := os.Rename(next, cur); err != nil {
		if old != "" {
			_ = os.Rename(old, cur) // put the previous artifact back
		}
		return err
	}
	if old != "" {
		return os.Rename(old, next)
	}
	return nil
}
