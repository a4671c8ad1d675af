//go:build !linux

package jpdirs

import "io/fs"

// openDirNoFollow: elsewhere the namespaced path does not walk.
const openDirNoFollow = 0

// keyOf: the namespaced path, the only user of a GitScan, is Linux's; a
// directory elsewhere is read on every walk.
func keyOf(fs.FileInfo) (dirKey, bool) { return dirKey{}, false }
