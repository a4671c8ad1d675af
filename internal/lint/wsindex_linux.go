package lint

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"os"
	"slices"
	"syscall"
)

// walkTreeDirents is walkTree reading each directory with getdents into
// one reused buffer, listing what filepath.WalkDir would list in the same
// order. WalkDir allocates a DirEntry, a name and a joined path for every
// entry; a short-lived process pays for every fresh heap page it touches
// (docs/lint.md), and the walk of a workspace's files is the part of lint
// that grows with the repository. Here an entry costs only the key string
// kept for a file. ok is false when dir is not a directory that can be
// walked this way; walkTreePortable then decides (and finds nothing).
func walkTreeDirents(dir string) (ix *wsIndex, ok bool) {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return nil, false
	}
	w := &direntWalk{ix: &wsIndex{}, buf: make([]byte, 4096)}
	w.dir(dir, "", true)
	return w.ix, true
}

type direntWalk struct {
	ix  *wsIndex
	n   int    // entries visited, as walkTreePortable counts them
	buf []byte // getdents buffer, reused
	// names holds the entries of the directories being read, a stack:
	// each is a length byte (a name has at most 255), a directory flag
	// and the name; ents are their offsets.
	names []byte
	ents  []uint32
	stop  bool
}

// entry returns the name and directory flag of the entry at off.
func (w *direntWalk) entry(off uint32) ([]byte, bool) {
	n := uint32(w.names[off])
	return w.names[off+2 : off+2+n], w.names[off+1] == 1
}

// dir lists path (key is its slash-separated path under the walk's root,
// "" for the root) and walks its subdirectories, depth first, each
// directory's entries sorted by name like os.ReadDir.
func (w *direntWalk) dir(path, key string, root bool) {
	base, first := len(w.names), len(w.ents)
	defer func() { w.names, w.ents = w.names[:base], w.ents[:first] }()
	if !w.read(path) && !root {
		// WalkDir skips a directory it cannot read, except the root,
		// whose entries read before the error are still walked.
		return
	}
	ents := w.ents[first:]
	slices.SortFunc(ents, func(a, b uint32) int {
		an, _ := w.entry(a)
		bn, _ := w.entry(b)
		return bytes.Compare(an, bn)
	})
	for i := first; i < len(w.ents) && !w.stop; i++ {
		w.n++
		if w.n > maxWalk {
			w.ix.truncated, w.stop = true, true
			return
		}
		name, isDir := w.entry(w.ents[i])
		if isDir {
			if !skipDir(string(name)) {
				sub := string(name)
				if key != "" {
					sub = key + "/" + sub
				}
				w.dir(path+"/"+string(name), sub, false)
			}
			continue
		}
		if key == "" {
			w.ix.files = append(w.ix.files, string(name))
		} else {
			w.ix.files = append(w.ix.files, key+"/"+string(name))
		}
	}
}

// read appends path's entries (but . and ..) to w.ents and reports
// whether the whole directory was read.
func (w *direntWalk) read(path string) bool {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer syscall.Close(fd)
	for {
		n, err := syscall.Getdents(fd, w.buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return false
		}
		if n <= 0 {
			return true
		}
		// struct linux_dirent64: u64 ino, s64 off, u16 reclen, u8 type,
		// then the name, NUL-terminated.
		for b := w.buf[:n]; len(b) >= 19; {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				return false
			}
			typ, name := b[18], b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			b = b[reclen:]
			if string(name) == "." || string(name) == ".." {
				continue
			}
			isDir := typ == syscall.DT_DIR
			if typ == syscall.DT_UNKNOWN {
				// Some file systems leave the type out: ask, as os.ReadDir
				// does, and drop an entry that vanished meanwhile.
				fi, err := os.Lstat(path + "/" + string(name))
				if err != nil {
					continue
				}
				isDir = fi.Mode().Type() == fs.ModeDir
			}
			if len(name) == 0 || len(name) > 255 || len(w.names) > 1<<31 {
				return false // not a Linux directory entry
			}
			flag := byte(0)
			if isDir {
				flag = 1
			}
			w.ents = append(w.ents, uint32(len(w.names)))
			w.names = append(append(w.names, byte(len(name)), flag), name...)
		}
	}
}
