//go:build linux || darwin

package execplan

import (
	"io"
	"io/fs"
	"syscall"
)

// pinFile reads the pin through a bare descriptor. An *os.File would
// initialise Go's network poller on the exec path's first open (an
// epoll instance, an eventfd, two epoll_ctl calls, one of them refused
// for a regular file, and the poller's descriptor cache): system calls
// and first touches on every tool call, for a file that is only ever
// read with pread.
type pinFile struct{ fd int }

func openPinFile(path string) (*pinFile, int64, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
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
