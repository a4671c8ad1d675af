//go:build linux

package compiler

import (
	"bytes"
	"os"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// writeNewFile creates path (which must not exist) holding data, with
// three system calls: os.OpenFile adds four more per file (registering
// it with the poller, which refuses regular files), which is a tenth of
// a compile's system calls when it writes 5,000 manifests.
func writeNewFile(path string, data []byte) error {
	fd, err := unix.Open(path, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	for len(data) > 0 {
		n, err := unix.Write(fd, data)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			unix.Close(fd)
			return &os.PathError{Op: "write", Path: path, Err: err}
		}
		data = data[n:]
	}
	if err := unix.Close(fd); err != nil {
		return &os.PathError{Op: "close", Path: path, Err: err}
	}
	return nil
}

// fileOwner is what a file compile creates looks like on this system:
// its permission bits (0644 less the umask) and owner.
type fileOwner struct {
	perm uint32
	uid  uint32
	ok   bool
}

// ownerOf returns f's permission bits and owner (f is a file the stage
// has just created).
func ownerOf(f *os.File) fileOwner {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return fileOwner{}
	}
	return fileOwner{perm: st.Mode & 0o7777, uid: st.Uid, ok: true}
}

// reuseFile links prev, a file of the previous artifact, to path when it
// holds exactly data and looks as a file compile creates would (regular,
// the same permission bits and owner, no other name), and reports whether
// it did. The bytes compared are read from the same open file that is
// linked (through /proc/self/fd), so what is linked is what was compared.
// Why: creating a file costs an inode, which the next removal of the
// artifact frees again, and on ext4 without a journal the allocator then
// steps over every recently freed inode of the group for each new one,
// which made a recompile's file creation several times the cost of a
// first compile's (docs/compile.md). A link costs neither. Anything
// unusual falls back to writing the file.
func reuseFile(prev, path string, data []byte, own fileOwner) bool {
	if !own.ok {
		return false
	}
	fd, err := unix.Open(prev, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Mode&0o7777 != own.perm ||
		st.Uid != own.uid || st.Nlink != 1 || st.Size != int64(len(data)) {
		return false
	}
	buf := readBufs.get(len(data) + 1)
	defer readBufs.put(buf)
	n := 0
	for n < len(buf) {
		m, err := unix.Read(fd, buf[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return false
		}
		if m == 0 {
			break
		}
		n += m
	}
	if n != len(data) || !bytes.Equal(buf[:n], data) {
		return false
	}
	return unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), unix.AT_FDCWD, path, unix.AT_SYMLINK_FOLLOW) == nil
}

// readBufs holds the buffers reuseFile reads previous files into (one
// per emit worker at a time).
var readBufs bufPool

type bufPool struct{ p sync.Pool }

func (bp *bufPool) get(n int) []byte {
	if b, ok := bp.p.Get().(*[]byte); ok && cap(*b) >= n {
		return (*b)[:n]
	}
	return make([]byte, n)
}

func (bp *bufPool) put(b []byte) { bp.p.Put(&b) }
