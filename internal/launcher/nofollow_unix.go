//go:build unix

package launcher

import (
	"errors"
	"os"

	"github.com/jp-policy/jp-policy/internal/jpdirs"

	"golang.org/x/sys/unix"
)

// ErrIsSymlink is ReadNoFollow's answer for a path that is a symlink.
var ErrIsSymlink = errors.New("is a symlink")

// ReadNoFollow reads a file that must not be a symlink (O_NOFOLLOW: the
// check and the read are one open).
func ReadNoFollow(path string) ([]byte, error) {
	// O_NONBLOCK and the regular-file check: a FIFO planted there must
	// not hang exec (jpdirs.OpenRegular).
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if errors.Is(err, unix.ELOOP) {
		return nil, ErrIsSymlink
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &jpdirs.NotRegularError{Path: path, Mode: fi.Mode()}
	}
	return jpdirs.ReadAll(f, fi.Size())
}
