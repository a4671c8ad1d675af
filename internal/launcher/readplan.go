package launcher

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
	var pl *execplan.Plan
	b, err := ReadNoFollow(path)
	if err == nil {
		if execplan.SHA256Hex(b) != want {
			return nil, &execplan.TamperError{Path: path, Reason: "does not match the hash pinned when it was compiled"}
		}
		if pl, err = execplan.Decode(b); err != nil {
			return nil, &MismatchError{Manifest: path, What: err.Error()}
		}
	}
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
