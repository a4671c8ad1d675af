package jpdirs

import (
	"io/fs"
	"syscall"
)

func keyOf(fi fs.FileInfo) (dirKey, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return dirKey{}, false
	}
	return dirKey{Dev: uint64(st.Dev), Ino: st.Ino, Ctime: st.Ctim.Nano()}, true
}
