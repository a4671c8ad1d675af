package launcher

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// CheckRealDirs refuses when any of dirs below root is a symlink (or not a
// directory): the artifact must be the one in this workspace's own .jp.
func CheckRealDirs(root string, dirs ...string) error {
	for _, d := range dirs {
		fi, err := os.Lstat(d)
		if errors.Is(err, fs.ErrNotExist) {
			continue // the artifact read reports what is missing
		}
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir() {
			rel, _ := filepath.Rel(root, d)
			return &ArtifactLinkError{Path: d, Rel: rel}
		}
	}
	return nil
}
