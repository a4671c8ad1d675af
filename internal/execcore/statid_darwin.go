package execcore

import (
	"io/fs"
	"syscall"
)

// identity is fi's verify-cache identity (verifycache.go).
func identity(fi fs.FileInfo) (statID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return statID{}, false
	}
	return statID{Dev: uint64(st.Dev), Ino: st.Ino, Size: st.Size, Mtime: st.Mtimespec.Nano(), Ctime: st.Ctimespec.Nano()}, true
}
