//go:build linux

package execplan

import (
	"io/fs"
	"syscall"
	"time"
)

// fileID is fi's identity ("dev:ino:size:mtime:ctime", times in
// nanoseconds) and change time; ok is false where fi has no stat data.
func fileID(fi fs.FileInfo) (string, time.Time, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", time.Time{}, false
	}
	return idString(uint64(st.Dev), st.Ino, st.Size, st.Mtim.Nano(), st.Ctim.Nano()), time.Unix(st.Ctim.Unix()), true
}
