//go:build !unix

package lint

import "io/fs"

// linkCount is 1: the hard links of a file are not reported here (a
// protected file's other names are a Linux and macOS concern of exec).
func linkCount(fs.FileInfo) uint64 { return 1 }
