//go:build unix

package launcher

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// errIsSymlink is readNoFollow's answer for a path that is a symlink.
var errIsSymlink = errors.New("is a symlink")

// readNoFollow reads a file that must not be a symlink (O_NOFOLLOW: the
// check and the read are one open).
func readNoFollow(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW, 0)
	if errors.Is(err, unix.ELOOP) {
		return nil, errIsSymlink
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return readAll(f, fi.Size())
}
