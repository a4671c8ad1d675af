package jpdirs

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// NotRegularError is a config layer or other input JP reads whose path
// names something that is not a regular file: a FIFO, a device, a
// socket or a directory (directly or through a symlink).
type NotRegularError struct {
	Path string
	Mode fs.FileMode
	// Kernel: a regular file of /proc, /sys and the like (a kernel
	// interface whose read may block, such as /proc/kmsg).
	Kernel bool
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file; remove it or replace it with a regular file", e.Path, e.kind())
}

func (e *NotRegularError) kind() string {
	if e.Kernel {
		return "a kernel interface file (/proc, /sys, ...)"
	}
	return kindOf(e.Mode)
}

func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a special file"
}

// OpenRegular opens path for reading only when it is a regular file
// (symlinks are followed: a dotfile manager's layer is a symlink). Why:
// a tool allowed to create files where JP looks for a config layer (a
// `.jp.toml` that does not exist yet is not protected) could plant a
// FIFO there, whose open blocks until a writer comes, or a symlink to
// /dev/zero, whose read never ends; every later exec and compile hashed
// or loaded it and hung (attack_lean_layer_fifo.txtar). A regular file of
// procfs, sysfs, debugfs, tracefs or securityfs is refused too: /proc/kmsg
// is one whose read waits for the next kernel message. The open does
// not block (O_NONBLOCK, which changes nothing for a regular file) and
// the type is taken from the open descriptor, so the file checked is the
// file read. A missing file is fs.ErrNotExist, as os.Open reports it.
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	if kernelFS(f) {
		f.Close()
		return nil, nil, &NotRegularError{Path: path, Mode: fi.Mode(), Kernel: true}
	}
	return f, fi, nil
}

// ReadAll reads f, whose size was size at fstat, to its end. Sized from
// fstat, as os.ReadFile does: io.ReadAll's doubling would allocate, copy
// and zero a large file many times over.
func ReadAll(f *os.File, size int64) ([]byte, error) {
	b := make([]byte, 0, size+1)
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // grew since fstat: let append size it
		}
	}
}
