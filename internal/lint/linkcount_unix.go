//go:build unix

package lint

import (
	"io/fs"
	"syscall"
)

// linkCount is fi's number of hard links, 1 where the platform does not
// say.
func linkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
