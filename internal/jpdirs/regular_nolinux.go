//go:build !linux

package jpdirs

import "os"

// kernelFS: only Linux has regular files that are blocking kernel
// interfaces (regular_linux.go).
func kernelFS(*os.File) bool { return false }
