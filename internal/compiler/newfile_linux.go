//go:build linux

package compiler

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"

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
	return writeAll(fd, path, data)
}

// writeAll writes data to fd, a new file, and closes it.
func writeAll(fd int, path string, data []byte) error {
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

// stageFS writes the stage's files relative to open directories: the
// previous artifact's and the stage's copy of each artifact directory
// (landlock/, sbpl/, ...). A recompile of 10,000 tools reuses 40,000
// files, and resolving two absolute paths for each (and /proc/self/fd
// for the link) was a third of what reusing them cost.
type stageFS struct {
	own  fileOwner
	prev map[string]int // directory -> fd in the previous artifact, absent when it has none
	next map[string]int // directory -> fd in the stage
}

// newStageFS opens dirs in out (the previous artifact, when there is one)
// and in stage (just made); own is how the stage's files look.
func newStageFS(out, stage string, dirs []string, own fileOwner) (*stageFS, error) {
	s := &stageFS{own: own, prev: map[string]int{}, next: map[string]int{}}
	for _, d := range dirs {
		fd, err := unix.Open(filepath.Join(stage, d), unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			s.close()
			return nil, &os.PathError{Op: "open", Path: filepath.Join(stage, d), Err: err}
		}
		s.next[d] = fd
		if fd, err := unix.Open(filepath.Join(out, d), unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err == nil {
			s.prev[d] = fd
		}
	}
	return s, nil
}

func (s *stageFS) close() {
	for _, m := range []map[string]int{s.prev, s.next} {
		for d, fd := range m {
			unix.Close(fd)
			delete(m, d)
		}
	}
}

// write puts data at name in the stage's dir: the previous artifact's
// file of that name, linked when it holds exactly data (reuseFile), else
// a new file.
func (s *stageFS) write(dir, name string, data []byte) error {
	next, ok := s.next[dir]
	if !ok {
		return fmt.Errorf("internal error: no stage directory %s", dir)
	}
	if prev, ok := s.prev[dir]; ok && reuseFile(prev, name, next, data, s.own) {
		return nil
	}
	return writeNewFileAt(next, name, data)
}

// reuseFile links name in prevDir, a file of the previous artifact, to
// name in nextDir when it holds exactly data and looks as a file compile
// creates would (regular, the same permission bits and owner, no other
// name), and reports whether it did. The bytes compared are read from the
// same open file that is linked, so what is linked is what was compared.
// Why: creating a file costs an inode, which the next removal of the
// artifact frees again, and on ext4 without a journal the allocator then
// steps over every recently freed inode of the group for each new one,
// which made a recompile's file creation several times the cost of a
// first compile's (docs/compile.md). A link costs neither. Anything
// unusual falls back to writing the file.
func reuseFile(prevDir int, name string, nextDir int, data []byte, own fileOwner) bool {
	if !own.ok {
		return false
	}
	fd, err := unix.Openat(prevDir, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
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
		n += m
		if m == 0 || n == len(data) {
			// A read of a regular file on Linux comes back short only at
			// its end, so this is all of it (the size fstat gave): no
			// second read to see the end.
			break
		}
	}
	if n != len(data) || !bytes.Equal(buf[:n], data) {
		return false
	}
	return linkFD(fd, nextDir, name)
}

// linkFD gives the open file fd the name name in dir. linkat with
// AT_EMPTY_PATH links the open file itself; kernels before 6.10 allow it
// only with CAP_DAC_READ_SEARCH, and there the file is linked through
// its /proc/self/fd entry, which is the same file.
func linkFD(fd, dir int, name string) bool {
	if !emptyPathRefused.Load() {
		err := unix.Linkat(fd, "", dir, name, unix.AT_EMPTY_PATH)
		if err == nil {
			return true
		}
		if err != unix.EPERM && err != unix.ENOENT && err != unix.EINVAL {
			return false
		}
		emptyPathRefused.Store(true)
	}
	return unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), dir, name, unix.AT_SYMLINK_FOLLOW) == nil
}

// emptyPathRefused is set once linkat(AT_EMPTY_PATH) has been refused.
var emptyPathRefused atomic.Bool

// writeNewFileAt is writeNewFile for name in the directory dir.
func writeNewFileAt(dir int, name string, data []byte) error {
	fd, err := unix.Openat(dir, name, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return &os.PathError{Op: "open", Path: name, Err: err}
	}
	return writeAll(fd, name, data)
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
