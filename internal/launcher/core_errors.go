package launcher

import "fmt"

// ArtifactLinkError refuses an artifact reached through a symlink: .jp,
// .jp/policy or policy.json itself. A tool that may write the workspace
// could point them at another workspace's compiled (and pinned) policy.
type ArtifactLinkError struct {
	Path string
	Rel  string
}

func (e *ArtifactLinkError) Error() string {
	what := e.Path
	if e.Rel != "" {
		what = e.Rel
	}
	return fmt.Sprintf("%s is a symlink (or not a directory); refusing an artifact reached through it, which could be another workspace's; remove it and run `jp-policy compile`", what)
}

// MismatchError says a manifest does not belong to the artifact that
// points at it (a half-written or hand-mixed output directory).
type MismatchError struct {
	Manifest string
	What     string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("%s: %s; run `jp-policy compile`", e.Manifest, e.What)
}

// TmpDirError refuses a run whose private temporary directory cannot be
// made safely.
type TmpDirError struct {
	Path string
	Err  error
}

func (e *TmpDirError) Error() string {
	return fmt.Sprintf("private TMPDIR %s: %v", e.Path, e.Err)
}

func (e *TmpDirError) Unwrap() error { return e.Err }
