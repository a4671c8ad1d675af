//go:build !unix

package launcher

import (
	"errors"
	"io/fs"
	"os"
)

// ErrIsSymlink is ReadNoFollow's answer for a path that is a symlink.
var ErrIsSymlink = errors.New("is a symlink")

// ReadNoFollow reads a file that must not be a symlink. Without
// O_NOFOLLOW the check and the read are two steps; the pin check that
// follows still refuses bytes compile did not write for this path.
func ReadNoFollow(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, ErrIsSymlink
	}
	return os.ReadFile(path)
}
