//go:build linux || darwin

package execplan

import (
	"io"
	"io/fs"
	"syscall"

	"github.com/jp-policy/jp-policy/internal/jpdirs"
)

// pinFile reads the pin through a bare descriptor. An *os.File would
// initialise Go's network poller on the exec path's first open (an
// epoll instance, an eventfd, two epoll_ctl calls, one of them refused
// for a regular file, and the poller's descriptor cache): system calls
// and first touches on every tool call, for a file that is only ever
// read with pread.
//
// It is opened without blocking and must be a regular file, as
// jpdirs.OpenRegular requires of every other file exec reads: a FIFO or
// a device planted at the pin's path is refused at once instead of
// hanging every exec, and a kernel file such as /proc/kmsg answers the
// non-blocking pread with EAGAIN (no poller turns that into a wait).
type pinFile struct{ fd int }

func openPinFile(path string) (*pinFile, int64, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, 0, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, 0, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if uint32(st.Mode)&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return nil, 0, &jpdirs.NotRegularError{Path: path, Mode: fileMode(uint32(st.Mode))}
	}
	return &pinFile{fd: fd}, st.Size, nil
}

// ReadAt is io.ReaderAt's: it fills p unless the file ends first, and
// then says io.EOF.
func (f *pinFile) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for n < len(p) {
		m, err := syscall.Pread(f.fd, p[n:], off+int64(n))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return n, err
		}
		if m == 0 {
			return n, io.EOF
		}
		n += m
	}
	return n, nil
}

func (f *pinFile) Close() error { return syscall.Close(f.fd) }

// fileMode is the fs.FileMode type bits of a stat mode, for the message.
func fileMode(m uint32) fs.FileMode {
	switch m & syscall.S_IFMT {
	case syscall.S_IFDIR:
		return fs.ModeDir
	case syscall.S_IFIFO:
		return fs.ModeNamedPipe
	case syscall.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFBLK:
		return fs.ModeDevice
	case syscall.S_IFSOCK:
		return fs.ModeSocket
	}
	return fs.ModeIrregular
}
