//go:build unix

package launcher

import (
	"errors"
	"io"
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
	// Sized from fstat, as os.ReadFile does: io.ReadAll's doubling would
	// allocate, copy and zero a large policy.json many times over.
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, fi.Size()+1)
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // grew since fstat: let append size it
		}
	}
}
