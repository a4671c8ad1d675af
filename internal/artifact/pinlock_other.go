//go:build !unix

package artifact

import "os"

// flock: no lock here (LockPin then only opens the file).
func flock(*os.File, bool) bool { return false }
