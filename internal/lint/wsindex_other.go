//go:build !linux

package lint

// walkTreeDirents reads directories with getdents on Linux only; elsewhere
// walkTree walks with filepath.WalkDir.
func walkTreeDirents(string) (*wsIndex, bool) { return nil, false }
