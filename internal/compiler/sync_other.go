//go:build !linux

package compiler

import "os"

// syncTree makes dir's entries durable (one fsync of the directory where
// the platform allows it); file contents are verified by hash at exec.
func syncTree(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	_ = d.Sync() // not supported on every platform (Windows directories)
	return nil
}

// swapDirs puts next in place of cur and leaves cur's previous content at
// next, with two renames (see swapByRename).
func swapDirs(next, cur string) error { return swapByRename(next, cur) }
