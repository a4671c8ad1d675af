package artifact

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/jp-policy/jp-policy/atomicfile"
)

// Why pins: the artifact usually lives inside the workspace, and a tool
// allowed to write the workspace could rewrite policy.json and its own
// manifest (inputs, hashes and all) to widen its next run. The staleness
// check cannot catch that, because the forged artifact is consistent with
// itself. So compile records the hash of policy.json outside the
// workspace, in the user's data directory, where sandboxed tools cannot
// write, and exec refuses an artifact whose hash is not the pinned one.
// policy.json in turn holds the hash of every manifest.

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

// SHA256Hex is the hex SHA-256 of data.
func SHA256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// PinFile is where the pin of the artifact directory dir is kept, under
// the user's JP data directory.
func PinFile(dataDir, dir string) string {
	abs, err := filepath.Abs(dir)
	if err == nil {
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			abs = r
		}
	} else {
		abs = dir
	}
	return filepath.Join(dataDir, "jp-policy", "pins", SHA256Hex([]byte(abs))[:32])
}

// WritePin records the hash of policy.json for dir, atomically.
func WritePin(dataDir, dir string, policyJSON []byte) error {
	path := PinFile(dataDir, dir)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, []byte(SHA256Hex(policyJSON)+"\n"), 0o600)
}

// CheckPin verifies policy.json (the bytes read from dir) against its pin.
// A missing pin is refused too: an artifact nobody pinned is one this user
// never compiled.
func CheckPin(dataDir, dir string, policyJSON []byte) error {
	path := PinFile(dataDir, dir)
	want, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &TamperError{Path: filepath.Join(dir, FileName), Reason: "was not written by `jp-policy compile` for this user (no pin in " + filepath.Dir(path) + ")"}
	}
	if err != nil {
		return err
	}
	if string(bytes.TrimSpace(want)) != SHA256Hex(policyJSON) {
		return &TamperError{Path: filepath.Join(dir, FileName), Reason: "does not match the hash pinned when it was compiled"}
	}
	return nil
}

// CheckManifest verifies a platform manifest's bytes against the hash the
// artifact recorded for it.
func (t *Tool) CheckManifest(platform, path string, data []byte) error {
	want, ok := t.ManifestSHA256[platform]
	if !ok {
		return &TamperError{Path: path, Reason: "has no recorded hash in policy.json"}
	}
	if want != SHA256Hex(data) {
		return &TamperError{Path: path, Reason: "does not match the hash recorded in policy.json"}
	}
	return nil
}
