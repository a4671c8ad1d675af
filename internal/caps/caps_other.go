//go:build !linux

package caps

// DropAll is Linux-only; other platforms have no capability sets.
func DropAll() error { return nil }
