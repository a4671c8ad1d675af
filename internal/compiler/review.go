package compiler

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/grantdiff"
	"github.com/jp-policy/jp-policy/internal/jpdirs"
	"github.com/jp-policy/jp-policy/internal/mountconsent"
)

// Why reviews: a tool allowed to write its own config (the default
// policy may write .jp/config.toml) can add rules, and the next compile
// used to accept them without showing anything. Compile now compares
// what it is about to write with the grants last accepted for this
// artifact (recorded beside the pin, outside the workspace) and needs
// consent for anything that widens.

// WideningPrompter asks the user to accept a widening. Implementations
// must default to "no".
type WideningPrompter interface {
	AcceptWidening(d *grantdiff.Diff) (bool, error)
}

// Review configures the consent step of CompileReviewed.
type Review struct {
	// Accept accepts any widening (--accept-widening).
	Accept bool
	// Prompter asks on a terminal; nil means no terminal: a widening is
	// refused unless Accept is set.
	Prompter WideningPrompter
}

// ReviewOutcome says what the review compared and decided.
type ReviewOutcome struct {
	// Diff is nil when there was nothing to compare with (no pin: a
	// fresh checkout, or the first compile here).
	Diff *grantdiff.Diff
	// Lost is set when a pin exists but what it accepted cannot be read:
	// the diff is then against nothing, so every grant counts as new.
	Lost error
	// Accepted: a widening was accepted (by flag, prompt or mount);
	// Prompted: the prompt showed the diff; ByMount: every widening is
	// a grant `jp-policy mount` added (package mountconsent).
	Accepted, Prompted, ByMount bool
}

// WideningError refuses to replace the artifact: the new policy widens
// grants and nobody accepted that.
type WideningError struct {
	Diff     *grantdiff.Diff
	Declined bool // asked on a terminal and answered no
}

func (e *WideningError) Error() string {
	_, widened := e.Diff.Tools()
	if e.Declined {
		return fmt.Sprintf("not compiled: you declined the widened grants of %v; the previous artifact is unchanged", widened)
	}
	return fmt.Sprintf("not compiled: the config widens the grants of %v (shown above); review the change, then run `jp-policy compile --accept-widening` (or `jp-policy compile` on a terminal to be asked)", widened)
}

// artifactPath is where the compiled policy.json of opts goes.
func artifactPath(opts *Options, root string) (string, error) {
	out := opts.OutDir
	if out == "" {
		out = defaultOutDir(root)
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return "", err
	}
	return filepath.Join(abs, artifact.FileName), nil
}

// Reviewed returns the grants last accepted for the artifact opts would
// write in root: artifact.ErrNoReview when nothing was ever pinned there,
// *artifact.ReviewLostError when the record is gone.
func Reviewed(opts Options, root string) (*artifact.Policy, error) {
	dataDir, err := jpdirs.UserDataDir(opts.getenv)
	if err != nil {
		return nil, err
	}
	ap, err := artifactPath(&opts, root)
	if err != nil {
		return nil, err
	}
	return artifact.ReadReviewed(dataDir, root, ap)
}

// review compares res with the accepted grants.
func review(opts Options, res *Result) (*ReviewOutcome, error) {
	if res.grantsSHA256 != "" {
		// The pin names the hash of the grants last accepted: the same
		// record means no grant changed, which is known without reading
		// it back and diffing every tool (most recompiles).
		if dataDir, err := jpdirs.UserDataDir(opts.getenv); err == nil {
			if ap, err := artifactPath(&opts, res.Root); err == nil && artifact.ReviewedSHA256(dataDir, res.Root, ap) == res.grantsSHA256 {
				return &ReviewOutcome{Diff: &grantdiff.Diff{}}, nil
			}
		}
	}
	old, err := Reviewed(opts, res.Root)
	out := &ReviewOutcome{}
	var lost *artifact.ReviewLostError
	switch {
	case errors.Is(err, artifact.ErrNoReview):
		return out, nil
	case errors.As(err, &lost):
		out.Lost = lost
		old = nil
	case err != nil:
		return nil, err
	}
	d, err := grantdiff.Compare(old, res.Artifact)
	if err != nil {
		return nil, err
	}
	out.Diff = d
	return out, nil
}

// CompileReviewed builds the artifact, compares it with the grants last
// accepted here and, when something widens, writes it only with consent
// (rv.Accept, or a yes from rv.Prompter); otherwise it returns a
// *WideningError and leaves the previous artifact and pin untouched.
// With no pin there is nothing to compare and nothing to ask.
func CompileReviewed(opts Options, rv Review) (*Result, string, *ReviewOutcome, error) {
	opts.prepareOut, opts.stream = true, true
	res, err := Build(opts)
	if err != nil {
		return nil, "", nil, err
	}
	ro, err := review(opts, res)
	if err != nil {
		res.discard()
		return res, "", nil, err
	}
	if ro.Diff != nil && ro.Diff.Widened() {
		switch {
		case mountConsented(opts, res.Root, ro.Diff):
			ro.Accepted, ro.ByMount = true, true
		case rv.Accept:
			ro.Accepted = true
		case rv.Prompter != nil:
			ro.Prompted = true
			ok, err := rv.Prompter.AcceptWidening(ro.Diff)
			if err != nil {
				res.discard()
				return res, "", ro, err
			}
			if !ok {
				res.discard()
				return res, "", ro, &WideningError{Diff: ro.Diff, Declined: true}
			}
			ro.Accepted = true
		default:
			res.discard()
			return res, "", ro, &WideningError{Diff: ro.Diff}
		}
	}
	out, err := writeAndPin(&opts, res)
	if err == nil {
		// What the mounts consented to is pinned now.
		if dataDir, derr := jpdirs.UserDataDir(opts.getenv); derr == nil {
			_ = mountconsent.Clear(dataDir, res.Root)
		}
	}
	return res, out, ro, err
}

// mountConsented reports whether every widening in d is a grant `jp-policy
// mount` recorded for root.
func mountConsented(opts Options, root string, d *grantdiff.Diff) bool {
	dataDir, err := jpdirs.UserDataDir(opts.getenv)
	if err != nil {
		return false
	}
	entries, err := mountconsent.Load(dataDir, root)
	return err == nil && mountconsent.Covers(entries, d)
}

// Rebuild compiles in memory exactly as Compile would write (the output
// directory is created first, so the bytes match a compile's).
func Rebuild(opts Options) (*Result, error) {
	opts.prepareOut = true
	return Build(opts)
}

// Commit writes a result built by Rebuild and pins it. reviewed stays
// the accepted baseline (exec commits a result that widens nothing
// against it, and must not lower what the user accepted); nil records
// the result's own grants. It returns the directory written.
func Commit(opts Options, res *Result, reviewed *artifact.Policy) (string, error) {
	return writePinned(&opts, res, reviewed)
}

// writeAndPin writes res to its output directory and pins policy.json
// with its grants in the user's data directory, outside the workspace,
// where tools cannot write, so exec can tell this artifact from one a
// tool rewrote and the next compile knows what was accepted.
func writeAndPin(opts *Options, res *Result) (string, error) {
	return writePinned(opts, res, nil)
}

func writePinned(opts *Options, res *Result, reviewed *artifact.Policy) (string, error) {
	if reviewed == nil {
		reviewed = res.Artifact
	}
	out := opts.OutDir
	if out == "" {
		out = defaultOutDir(res.Root)
	}
	dataDir, err := jpdirs.UserDataDir(opts.getenv)
	if err != nil {
		res.discard()
		return out, fmt.Errorf("cannot pin the artifact: %w", err)
	}
	ap, err := artifactPath(opts, res.Root)
	if err != nil {
		res.discard()
		return out, err
	}
	if res.stage == nil {
		// Built in memory (Rebuild): lock and stage its files now.
		unlock, err := lockOut(opts, res.Root, out)
		if err != nil {
			return out, err
		}
		if res.stage, err = stageFiles(out, res.Files); err != nil {
			unlock()
			return out, err
		}
		res.stage.unlock = unlock
	}
	// One compile at a time per pin, from staging to pinning (Build took
	// the lock for a streamed compile): a reader that finds new files
	// with old hashes looks again under this lock (artifact.LockPin).
	unlock := res.stage.unlock
	res.stage.unlock = nil
	defer unlock()
	st := res.stage
	res.stage = nil
	removed, err := st.commit()
	if err != nil {
		st.discard() // not in place: the previous artifact and pin stay
		return out, err
	}
	// The previous artifact is removed while the pin is written.
	sum := ""
	if reviewed == res.Artifact {
		sum = res.grantsSHA256 // the record is the result's own
	}
	if err := artifact.WritePinReviewed(dataDir, res.Root, ap, res.policySHA256, res.execHashes, res.Artifact.Inputs, reviewed, sum); err != nil {
		removed()
		return out, fmt.Errorf("pinning the artifact in %s: %w", dataDir, err)
	}
	if err := removed(); err != nil {
		return out, fmt.Errorf("removing the previous artifact: %w", err)
	}
	return out, nil
}
