package approvals

import (
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/jp-policy/jp-policy/internal/jpdirs"
)

// DefaultPath is where JP keeps the approvals of the workspace at root:
// <user-workspace-storage>/approvals.json (RFD D43 "Storage"), the same
// directory JP's FsStorageBackend::user_storage_with_path resolves, i.e.
// <user_data_dir>/workspace/<slug>-<id>/approvals.json. Without an id JP
// accepts there is no such directory: *NoIDError.
func DefaultPath(root string, getenv func(string) string) (string, error) {
	dir, err := jpdirs.UserWorkspaceDir(root, getenv)
	if _, invalid := errors.AsType[*jpdirs.InvalidIDError](err); invalid || errors.Is(err, fs.ErrNotExist) {
		return "", &NoIDError{Root: root, Err: err}
	}
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, FileName), nil
}
