package launcher

import (
	"errors"

	"github.com/jp-policy/jp-policy/emit/landlock"
)

// DefaultManifest builds the Linux manifest of RFD 075's default policy
// (workspace read-write, no network, minimal environment, any command)
// for a workspace root, in-process, without an artifact.
func DefaultManifest(root, tool string) (*landlock.Manifest, error) {
	return nil, errors.New("--default is not available yet: it needs policy.Default and landlock.Build")
}
