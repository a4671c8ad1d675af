package jpdirs

import (
	"io/fs"
	"os"
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

// openOwnDir opens directory p for reading, taking back read and search
// on it (u+rwx) when it is the caller's and its mode keeps the caller out:
// a tool runs as the caller and owns what it makes, so it can chmod 111 a
// directory above a repository it made, which the walk could then not
// list while the user can still cd through it (attack_nested_git_hide).
// Search matters as much as read: the walk opens what is below by path.
// Root reads and searches whatever the mode says.
func openOwnDir(p string) (*os.File, error) {
	euid := os.Geteuid()
	f, err := os.OpenFile(p, os.O_RDONLY|openDirNoFollow, 0)
	if err != nil {
		if euid == 0 || !os.IsPermission(err) {
			return nil, err
		}
		fi, lerr := os.Lstat(p)
		if lerr != nil || !fi.IsDir() || !ownedBy(fi, euid) {
			return nil, err
		}
		if err := os.Chmod(p, fi.Mode().Perm()|0o700); err != nil {
			return nil, err
		}
		if f, err = os.OpenFile(p, os.O_RDONLY|openDirNoFollow, 0); err != nil {
			return nil, err
		}
	}
	if fi, err := f.Stat(); err == nil && euid != 0 && fi.Mode().Perm()&0o100 == 0 && ownedBy(fi, euid) {
		_ = f.Chmod(fi.Mode().Perm() | 0o700)
	}
	return f, nil
}

func ownedBy(fi fs.FileInfo, uid int) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == uid
}

// localFS are the filesystems (statfs f_type) whose inodes' ctime the
// kernel sets on every change: ext2/3/4, XFS, Btrfs, tmpfs, overlayfs
// (its directories' ctime is the upper layer's), F2FS, ZFS, bcachefs.
var localFS = map[uint32]bool{
	0xef53:     true, // ext2/3/4
	0x58465342: true, // XFS
	0x9123683e: true, // Btrfs
	0x01021994: true, // tmpfs
	0x794c7630: true, // overlayfs
	0xf2f52010: true, // F2FS
	0x2fc12fc1: true, // ZFS
	0xca451a4e: true, // bcachefs
}

// forceCtimeUntrusted makes ctimeKept false; only tests set it.
var forceCtimeUntrusted bool

// ctimeKept tells whether directory p lies on a filesystem in localFS.
func ctimeKept(p string) bool {
	var st syscall.Statfs_t
	if forceCtimeUntrusted || syscall.Statfs(p, &st) != nil {
		return false
	}
	return localFS[uint32(st.Type)]
}
