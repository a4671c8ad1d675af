//go:build !linux

package jpdirs

import (
	"io/fs"
	"os"
)

// keyOf: the namespaced path, the only user of a GitScan, is Linux's; a
// directory elsewhere is read on every walk.
func keyOf(fs.FileInfo) (dirKey, bool) { return dirKey{}, false }

// openOwnDir opens directory p (gitscan_linux.go takes back access to the
// caller's directories; elsewhere the namespaced path does not walk).
func openOwnDir(p string) (*os.File, error) { return os.Open(p) }

// ctimeKept: elsewhere keyOf gives no key, so nothing is reused.
func ctimeKept(string) bool { return false }
