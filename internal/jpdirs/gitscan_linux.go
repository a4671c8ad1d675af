package jpdirs

import (
	"io/fs"
	"syscall"
)

// openDirNoFollow opens a directory, never a symlink's target.
const openDirNoFollow = syscall.O_DIRECTORY | syscall.O_NOFOLLOW

func keyOf(fi fs.FileInfo) (dirKey, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return dirKey{}, false
	}
	return dirKey{Dev: uint64(st.Dev), Ino: st.Ino, Ctime: st.Ctim.Nano()}, true
}
