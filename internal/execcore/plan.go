package execcore

import (
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/jp-policy/jp-policy/internal/execplan"
)

// ReadPlan reads tool's exec plan beside the artifact at artifactPath
// (never through a symlink), checks it against want, its hash in the pin,
// and decodes it. A plan that is missing, altered, or another tool's is
// refused: only bytes compile wrote for this tool are ever applied.
func ReadPlan(artifactPath, tool, want string) (*execplan.Plan, error) {
	rel := execplan.PlanFile(tool)
	if rel == "" {
		return nil, &MismatchError{Manifest: artifactPath, What: "tool name " + tool + " cannot name a file"}
	}
	path := filepath.Join(filepath.Dir(artifactPath), filepath.FromSlash(rel))
	// The bytes are read into a buffer the run reuses (readNoFollow);
	// Decode copies what the plan keeps.
	var pl *execplan.Plan
	err := readNoFollow(path, func(b []byte) error {
		if execplan.SHA256Hex(b) != want {
			return &execplan.TamperError{Path: path, Reason: "does not match the hash pinned when it was compiled"}
		}
		p, err := execplan.Decode(b)
		if err != nil {
			return &MismatchError{Manifest: path, What: err.Error()}
		}
		pl = p
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &MismatchError{Manifest: path, What: "the tool's exec plan listed in the pin is missing"}
	}
	if errors.Is(err, ErrIsSymlink) {
		return nil, &ArtifactLinkError{Path: path}
	}
	if err != nil {
		return nil, err
	}
	if pl.Tool != tool {
		return nil, &MismatchError{Manifest: path, What: "exec plan is for tool " + pl.Tool + ", not " + tool}
	}
	return pl, nil
}
