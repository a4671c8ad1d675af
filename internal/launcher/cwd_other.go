//go:build !linux

package launcher

import (
	"os"
	"path/filepath"
)

// realCwd is the current directory with every symlink resolved.
func realCwd() (string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = real
	}
	return cwd, nil
}
