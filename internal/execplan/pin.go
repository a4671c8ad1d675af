package execplan

import (
	"errors"
	"fmt"
	"github.com/jp-policy/jp-policy/internal/jpdirs"
	"path/filepath"
)

// ErrTampered is returned (wrapped) when an artifact or manifest does not
// match what jp-policy compile wrote.
var ErrTampered = errors.New("the compiled policy was changed after `jp-policy compile` wrote it")

// TamperError names the file that does not match.
type TamperError struct {
	Path   string
	Reason string
}

func (e *TamperError) Error() string {
	return fmt.Sprintf("%v: %s %s; run `jp-policy compile` (and check what changed it)", ErrTampered, e.Path, e.Reason)
}

func (e *TamperError) Unwrap() error { return ErrTampered }

// Pin is what compile records outside the workspace for one artifact:
// the canonical workspace root it was compiled for, the path it was
// written to, and the hash of its policy.json. Exec checks all three, so
// an artifact moved, symlinked in from another workspace, or rewritten is
// refused.
type Pin struct {
	Version  int    `json:"version"`
	Root     string `json:"root"`
	Artifact string `json:"artifact"`
	SHA256   string `json:"sha256"`
	// GrantsSHA256 is the hash of the reviewed grants recorded beside the
	// pin (grants.go); empty in pins written before grant reviews.
	GrantsSHA256 string `json:"grants_sha256,omitempty"`
	// Inputs are the artifact's staleness inputs (everything the compile
	// read, with its hash), which exec checks before it trusts any file
	// of the artifact. They are in the pin, not in each tool's files, so
	// that a tool's files depend only on its own compiled policy and an
	// edit elsewhere in the config (even a comment) leaves them byte for
	// byte the same, and the next compile links them instead of writing
	// them (docs/compile.md). Their number does not grow with the number
	// of tools: layers, candidate layers, the approvals store, JP_CFG_
	// variables and the symlinks rule paths cross.
	Inputs []Input `json:"-"`
	// Tools maps each tool to the hash of its exec plan (PlanFile), so exec
	// verifies one small file instead of all of policy.json. It is not
	// part of the JSON header: the pin file stores it as sorted lines
	// after it (see MarshalPin), which exec searches without reading or
	// decoding the whole table (LookupPinTool).
	Tools map[string]string `json:"-"`
}

// PinVersion is the pin file's format: header lines (the staleness
// inputs among them, a file input with its identity, Input.ID) followed
// by one "<tool> <exec plan sha256>" line per tool, sorted by tool name.
// Formats 3 and 4 kept the inputs in every tool's files, 5 pinned plans
// of an older format: their header is still read (ParsePin, so an
// upgrade keeps the grants the user accepted), but exec refuses them
// (PinTool, *OldPinError) until the next compile writes format 6.
const PinVersion = 6

// oldestPinVersion is the oldest line-based pin format ParsePinHeader
// reads.
const oldestPinVersion = 3

// OldPinError is a pin an older jp-policy wrote, whose artifact this one
// does not apply: the per-tool files it pins are of an older format.
// It matches ErrStale, so exec's recompile-on-stale (when enabled)
// replaces it like any other outdated artifact.
type OldPinError struct {
	Path    string
	Version int
}

func (e *OldPinError) Error() string {
	return fmt.Sprintf("%v: %s is pin format %d, written by an older jp-policy (this one reads format %d); run `jp-policy compile`", ErrStale, e.Path, e.Version, PinVersion)
}

func (e *OldPinError) Unwrap() error { return ErrStale }

// PinFile is where the pin of the artifact at artifactPath, compiled for
// the workspace root, is kept under the user's JP data directory. The key
// is the pair (root, artifact path) as given, never a resolved path: a
// symlinked .jp/policy must not find the pin of the directory it points
// to.
func PinFile(dataDir, root, artifactPath string) string {
	return filepath.Join(jpdirs.PolicyDataDir(dataDir), "pins", SHA256Hex([]byte(root + "\x00" + artifactPath))[:32]+".json")
}

// NoPinError is an artifact this user's data directory holds no pin for.
type NoPinError struct {
	Artifact string
	PinDir   string
}

func (e *NoPinError) Error() string {
	return fmt.Sprintf("no pin for the artifact %s in %s (compiled by another user or with another JP_USER_DATA_DIR?); run `jp-policy compile`", e.Artifact, e.PinDir)
}

// Check refuses a pin that names another root or artifact path.
func (pin *Pin) Check(root, artifactPath string) error {
	switch {
	case pin.Root != root:
		return &TamperError{Path: artifactPath, Reason: fmt.Sprintf("was pinned for the workspace %s, not %s", pin.Root, root)}
	case pin.Artifact != artifactPath:
		return &TamperError{Path: artifactPath, Reason: fmt.Sprintf("was pinned at %s", pin.Artifact)}
	}
	return nil
}
