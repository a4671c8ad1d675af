package artifact

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/jp-policy/jp-policy/internal/execplan"
	"github.com/jp-policy/jp-policy/internal/platform"

	"github.com/jp-policy/jp-policy/internal/atomicfile"
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
var ErrTampered = execplan.ErrTampered

// TamperError names the file that does not match.
type TamperError = execplan.TamperError

// SHA256Hex is the hex SHA-256 of data.
func SHA256Hex(data []byte) string { return execplan.SHA256Hex(data) }

// Pin is compile's record of one artifact outside the workspace
// (execplan.Pin, which the exec path reads).
type Pin = execplan.Pin

// PinVersion is the pin file's format.
const PinVersion = execplan.PinVersion

// PinFile is where the pin of the artifact at artifactPath, compiled for
// the workspace root, is kept under the user's JP data directory.
func PinFile(dataDir, root, artifactPath string) string {
	return execplan.PinFile(dataDir, root, artifactPath)
}

// WritePin records policy.json's hash for (root, artifactPath),
// atomically, with no tool table: exec then reads and checks the whole
// policy.json (and takes the staleness inputs from it).
func WritePin(dataDir, root, artifactPath string, policyJSON []byte) error {
	path := PinFile(dataDir, root, artifactPath)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, err := MarshalPin(&Pin{Version: PinVersion, Root: root, Artifact: artifactPath, SHA256: SHA256Hex(policyJSON)})
	if err != nil {
		return err
	}
	return atomicfile.Write(path, b, 0o600)
}

// NoPinError is an artifact this user's data directory holds no pin for.
type NoPinError = execplan.NoPinError

// CheckPin verifies policy.json (the bytes read from artifactPath) against
// the pin for (root, artifactPath). A missing pin is refused too: an
// artifact nobody pinned is one this user never compiled here.
func CheckPin(dataDir, root, artifactPath string, policyJSON []byte) error {
	pin, err := ReadPin(dataDir, root, artifactPath)
	if err != nil {
		return err
	}
	if pin.SHA256 != SHA256Hex(policyJSON) {
		return &TamperError{Path: artifactPath, Reason: "does not match the hash pinned when it was compiled"}
	}
	return nil
}

// ReadPin returns the pin for (root, artifactPath), refusing one that
// names another root or path, and a missing one (*NoPinError).
func ReadPin(dataDir, root, artifactPath string) (*Pin, error) {
	path := PinFile(dataDir, root, artifactPath)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &NoPinError{Artifact: artifactPath, PinDir: filepath.Dir(path)}
	}
	if err != nil {
		return nil, err
	}
	pin, err := ParsePin(b)
	if err != nil {
		return nil, &TamperError{Path: path, Reason: "is not a pin this jp-policy wrote"}
	}
	if err := pin.Check(root, artifactPath); err != nil {
		return nil, err
	}
	return pin, nil
}

// CheckManifest verifies a platform manifest's bytes against the hash the
// artifact recorded for it.
func (t *Tool) CheckManifest(plat platform.Platform, path string, data []byte) error {
	want, ok := t.ManifestSHA256[plat]
	if !ok {
		return &TamperError{Path: path, Reason: "has no recorded hash in policy.json"}
	}
	if want != SHA256Hex(data) {
		return &TamperError{Path: path, Reason: "does not match the hash recorded in policy.json"}
	}
	return nil
}
