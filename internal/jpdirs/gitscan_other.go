//go:build !linux

package jpdirs

import "io/fs"

// keyOf: the namespaced path, the only user of a GitScan, is Linux's; a
// directory elsewhere is read on every walk.
func keyOf(fs.FileInfo) (dirKey, bool) { return dirKey{}, false }
