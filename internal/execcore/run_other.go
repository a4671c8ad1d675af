//go:build !linux

package execcore

// run: the fast path is Linux only (Landlock on the exec thread); every
// other platform's run is the full path's.
func run(*Options) (bool, error) { return false, handOffMsg("no fast path on this platform") }
