//go:build linux

package compiler

import (
	"os"

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
