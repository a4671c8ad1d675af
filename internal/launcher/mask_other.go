//go:build !linux

package launcher

// canMask is false: exact masks need a Linux mount namespace.
func canMask() bool { return false }
