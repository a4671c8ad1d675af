//go:build linux

package execcore

import (
	"io/fs"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// The fast path reads a few small files on every run (the tool's exec
// plan, the verify cache, /proc/PID/stat, the TMPDIR root's listing), and
// each one read through os.File into a fresh slice cost page faults out
// of proportion to its size (docs/exec.md, "Where jp-policy-exec's
// faults go"): the File and its poller state, a heap span for each new
// size class (a fresh span is two first touches: the object and the
// span's mark bits), and the copy into it. So the fast path reads them
// with plain system calls into one buffer in the binary's zero-filled
// data, which costs only the pages a read reaches and is reused by every
// read of the run. Decoders copy what they keep (execplan.Decode turns
// the bytes into a string first; the verify cache unquotes its paths), so
// nothing outlives the callback. The buffer is taken by one read at a
// time; a concurrent caller (the full CLI, tests) gets a heap buffer
// instead.

// scratchSize holds a plan with a few dozen rules and a verify cache of
// as many inputs; a larger file is read into the heap.
const scratchSize = 16 << 10

var scratch struct {
	busy atomic.Bool
	buf  [scratchSize]byte
}

// takeScratch returns the shared buffer, or a heap one of the same size
// when it is in use; release gives the shared one back. Not inlined: in
// its caller the fallback's make would not escape and would become a
// 16 KB stack frame, which deepens the stack a run touches.
//
//go:noinline
func takeScratch() (buf []byte, release func()) {
	if scratch.busy.CompareAndSwap(false, true) {
		return scratch.buf[:], releaseScratch
	}
	return make([]byte, scratchSize), func() {}
}

func releaseScratch() { scratch.busy.Store(false) }

// withFile opens path (flags are added to O_RDONLY|O_CLOEXEC|O_NONBLOCK:
// a FIFO must not block the open), checks that it is a regular file, and
// calls use with its whole contents, which use must not keep. The errors
// are os.Open's and os.ReadFile's kind: a *fs.PathError wrapping the
// errno (fs.ErrNotExist for a missing file), and *errNotRegular for
// anything else than a regular file.
func withFile(path string, flags int, use func([]byte) error) error {
	fd, err := openRetry(path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK|flags)
	if err != nil {
		return &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return errNotRegular{mode: st.Mode}
	}
	buf, release := takeScratch()
	defer release()
	if st.Size >= int64(len(buf)) {
		buf = make([]byte, st.Size+1)
	}
	n, err := readFD(fd, buf)
	for err == nil && n == len(buf) { // grew since fstat
		buf = append(buf, make([]byte, len(buf))...)
		var m int
		m, err = readFD(fd, buf[n:])
		n += m
	}
	if err != nil {
		return &fs.PathError{Op: "read", Path: path, Err: err}
	}
	return use(buf[:n])
}

// errNotRegular is withFile's answer for a path that is not a regular
// file; callers turn it into their own error.
type errNotRegular struct{ mode uint32 }

func (errNotRegular) Error() string { return "not a regular file" }

// readFD reads fd into b until b is full or the file ends.
func readFD(fd int, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := unix.Read(fd, b[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return n, err
		}
		if m == 0 {
			break
		}
		n += m
	}
	return n, nil
}

func openRetry(path string, flags int) (int, error) {
	for {
		fd, err := unix.Open(path, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// readNoFollow calls use with the contents of path, which must not be a
// symlink, as ReadNoFollow reads it, with the same errors; use must not
// keep the bytes.
func readNoFollow(path string, use func([]byte) error) error {
	err := withFile(path, unix.O_NOFOLLOW, use)
	if pe, ok := err.(*fs.PathError); ok && pe.Op == "open" && pe.Err == unix.ELOOP {
		return ErrIsSymlink
	}
	if _, ok := err.(errNotRegular); ok {
		// Rare: ReadNoFollow words the refusal (jpdirs.NotRegularError).
		if _, err = ReadNoFollow(path); err == nil {
			err = &fs.PathError{Op: "read", Path: path, Err: fs.ErrInvalid} // replaced since
		}
	}
	return err
}

// readFile calls use with the contents of path (a regular file, symlinks
// followed) as os.ReadFile reads it; use must not keep the bytes.
func readFile(path string, use func([]byte) error) error {
	err := withFile(path, 0, use)
	if _, ok := err.(errNotRegular); ok {
		err = &fs.PathError{Op: "read", Path: path, Err: fs.ErrInvalid}
	}
	return err
}
