package artifact

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/jp-policy/jp-policy/internal/platform"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

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
	// Tools maps each tool to the hash of its exec file (DirExec), so exec
	// verifies one small file instead of all of policy.json. It is not
	// part of the JSON header: the pin file stores it as sorted lines
	// after it (see MarshalPin), which exec searches without reading or
	// decoding the whole table (LookupPinTool).
	Tools map[string]string `json:"-"`
}

// PinVersion is the pin file's format: 3 is a JSON header line followed
// by one "<tool> <exec file sha256>" line per tool, sorted by tool name.
const PinVersion = 3

// PinFile is where the pin of the artifact at artifactPath, compiled for
// the workspace root, is kept under the user's JP data directory. The key
// is the pair (root, artifact path) as given, never a resolved path: a
// symlinked .jp/policy must not find the pin of the directory it points
// to.
func PinFile(dataDir, root, artifactPath string) string {
	return filepath.Join(dataDir, "jp-policy", "pins", SHA256Hex([]byte(root + "\x00" + artifactPath))[:32]+".json")
}

// WritePin records policy.json's hash for (root, artifactPath), atomically.
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
type NoPinError struct {
	Artifact string
	PinDir   string
}

func (e *NoPinError) Error() string {
	return fmt.Sprintf("no pin for the artifact %s in %s (compiled by another user or with another JP_USER_DATA_DIR?); run `jp-policy compile`", e.Artifact, e.PinDir)
}

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
	if err := pin.check(root, artifactPath); err != nil {
		return nil, err
	}
	return pin, nil
}

// check refuses a pin that names another root or artifact path.
func (pin *Pin) check(root, artifactPath string) error {
	switch {
	case pin.Root != root:
		return &TamperError{Path: artifactPath, Reason: fmt.Sprintf("was pinned for the workspace %s, not %s", pin.Root, root)}
	case pin.Artifact != artifactPath:
		return &TamperError{Path: artifactPath, Reason: fmt.Sprintf("was pinned at %s", pin.Artifact)}
	}
	return nil
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

// VerifiedFile is where exec keeps, beside the pin, the stat identities of
// input files it has hashed (see launcher's verify cache): a file in the
// user's data directory, like the pin, so a sandboxed tool cannot write it.
func VerifiedFile(dataDir, root, artifactPath string) string {
	return strings.TrimSuffix(PinFile(dataDir, root, artifactPath), ".json") + ".verified"
}
