//go:build !linux

package execcore

import "os"

// readNoFollow calls use with the contents of path, which must not be a
// symlink (ReadNoFollow); use must not keep them. Only Linux reads into
// a shared buffer (scratch_linux.go).
func readNoFollow(path string, use func([]byte) error) error {
	b, err := ReadNoFollow(path)
	if err != nil {
		return err
	}
	return use(b)
}

// readFile calls use with the contents of path (os.ReadFile).
func readFile(path string, use func([]byte) error) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return use(b)
}
