package launcher

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/grantdiff"
	"github.com/jp-policy/jp-policy/internal/jpdirs"
)

// Why: any edit of a config layer (a comment) used to make exec refuse
// every tool until the user recompiled, and the user then recompiled
// without seeing what changed, which is how a tool that wrote its own
// config got its new grants (issue 15). On the stale path only, exec now
// recompiles in memory and compares the grants with the pinned ones:
// nothing wider, it writes, re-pins and runs; anything wider, it refuses
// and shows the diff. The fast path (artifact current) never gets here.
//
// The compiler is reached through Recompiler, which cmd/jp-policy sets,
// so package launcher (and a binary of the launcher alone) does not link
// the compile pipeline.

// Recompiler rebuilds a workspace's policy in memory.
type Recompiler interface {
	// Rebuild compiles the config for root as exec sees it now (from the
	// current directory, with this environment), for the artifact at
	// artifactPath, without writing anything.
	Rebuild(root, artifactPath string) (Rebuilt, error)
	// Notice tells the user, once, what exec did.
	Notice(msg string)
}

// Rebuilt is a policy compiled in memory.
type Rebuilt interface {
	Artifact() *artifact.Policy
	// Commit writes the artifact and pins it, keeping reviewed as the
	// grants the user accepted.
	Commit(reviewed *artifact.Policy) error
}

// StaleWideningError refuses a stale artifact whose recompiled policy
// widens a grant: the user must review and accept it.
type StaleWideningError struct {
	Stale error
	Diff  *grantdiff.Diff
	// Accept is the command that accepts the widening.
	Accept string
}

func (e *StaleWideningError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v\nthe config now grants more than the compiled policy:\n", e.Stale)
	for line := range strings.SplitSeq(strings.TrimSuffix(e.Diff.Text(), "\n"), "\n") {
		b.WriteString("  " + line + "\n")
	}
	fmt.Fprintf(&b, "refusing to run; if you made this change, review it and run `%s` (on a terminal `jp-policy compile` asks)", e.Accept)
	return b.String()
}

func (e *StaleWideningError) Unwrap() error { return e.Stale }

// StaleRecompileError is a stale artifact that could not be recompiled
// (the config has errors, the output directory cannot be written).
type StaleRecompileError struct {
	Stale error
	Err   error
}

func (e *StaleRecompileError) Error() string {
	return fmt.Sprintf("%v\n(recompiling it failed: %v)", e.Stale, e.Err)
}

func (e *StaleRecompileError) Unwrap() error { return e.Stale }

// recompileStale handles a stale artifact: rebuild, compare with the
// pinned artifact, and write + re-pin when nothing widened. It returns
// the tool's location in the new artifact.
func (o *Options) recompileStale(root, artifactPath string, strict bool, stale error) (*located, error) {
	// The baseline is what the user last accepted (recorded beside the
	// pin), not merely the artifact exec last wrote: after an accepted
	// widening, running from a directory that loads fewer layers and back
	// must not ask again. Without a readable baseline, refuse as before.
	dataDir, err := jpdirs.UserDataDir(os.Getenv)
	if err != nil {
		return nil, stale
	}
	old, err := artifact.ReadReviewed(dataDir, root, artifactPath)
	if err != nil {
		return nil, stale
	}
	rb, err := o.Recompile.Rebuild(root, artifactPath)
	if err != nil {
		return nil, &StaleRecompileError{Stale: stale, Err: err}
	}
	d, err := grantdiff.Compare(old, rb.Artifact())
	if err != nil {
		return nil, &StaleRecompileError{Stale: stale, Err: err}
	}
	if d.Widened() {
		return nil, &StaleWideningError{Stale: stale, Diff: d, Accept: o.acceptCommand(root, artifactPath, strict)}
	}
	if err := rb.Commit(old); err != nil {
		// Another exec of the same workspace may have recompiled at the
		// same moment and won the rename: if the artifact is current
		// now, use it.
		if loc, lerr := resolveManifest(root, artifactPath, strict, o.Tool, o.Platform); lerr == nil {
			return loc, nil
		}
		return nil, &StaleRecompileError{Stale: stale, Err: err}
	}
	what := "no grant changed"
	if !d.Empty() {
		changed, _ := d.Tools()
		what = fmt.Sprintf("grants narrowed for %s, none widened", strings.Join(changed, ", "))
	}
	o.Recompile.Notice(fmt.Sprintf("jp-policy: the config changed since the last compile (%s); recompiled and pinned it: %s", staleCause(stale), what))
	loc, err := resolveManifest(root, artifactPath, strict, o.Tool, o.Platform)
	if errors.Is(err, artifact.ErrStale) {
		// Changed again while we compiled: refuse rather than loop.
		return nil, err
	}
	return loc, err
}

// staleCause is the part of a staleness error that names the input.
func staleCause(err error) string {
	if se, ok := errors.AsType[*artifact.StaleError](err); ok {
		return se.Input.Kind + " " + se.Input.Path
	}
	if le, ok := errors.AsType[*LayerChainError](err); ok {
		return "layer " + le.Path
	}
	return err.Error()
}

// acceptCommand is the compile line that accepts the widening for this
// artifact, from the current directory.
func (o *Options) acceptCommand(root, artifactPath string, strict bool) string {
	cmd := "jp-policy compile --accept-widening"
	if o.Workspace != "" {
		cmd += " --workspace " + root
	}
	if !strict {
		cmd += " --out " + filepath.Dir(artifactPath)
	}
	return cmd
}
