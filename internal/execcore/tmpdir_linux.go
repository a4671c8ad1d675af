//go:build linux

package execcore

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Every exec gets a private writable temporary directory, exported as
// TMPDIR (an addition to RFD 075's minimal environment: /tmp is outside
// every grant, and compilers, test runners and package managers write
// there).
//
// On the namespaced path it is the private tmpfs on /tmp, which goes away
// with the mount namespace. The fast path ends in execve with nothing
// left to clean up afterwards, so its directory is
// <os.TempDir()>/jp-policy-<uid>/<pid>-<start time>: the tool keeps the
// launcher's pid across execve, and the start time (field 22 of
// /proc/PID/stat) tells a reused pid apart. Every fast-path exec first
// removes the directories of this user's tools that no longer run. The
// root is the user's own (created 0700, refused when it is a symlink,
// someone else's or open to others), so no other user can plant or read
// anything there. A directory lives from its tool's start until the next
// exec after the tool's exit; processes the tool left behind lose it then.

// The set-up runs on every fast-path exec, so it is done with plain
// system calls and buffers that do not grow the heap (scratch_linux.go):
// through os.ReadDir, os.ReadFile and strings.Fields it cost about 6 page
// faults a run (an 8 KB directory buffer, File objects, field slices).

// TmpRoot is this user's root of per-exec directories.
func TmpRoot() string {
	return filepath.Join(os.TempDir(), "jp-policy-"+strconv.Itoa(os.Getuid()))
}

// FastTmpDir creates this process's private directory under root (after
// sweeping those of tools that have exited) and returns it.
func FastTmpDir(root string) (string, error) {
	if err := mkdir(root); err != nil && err != unix.EEXIST {
		return "", &TmpDirError{Path: root, Err: &fs.PathError{Op: "mkdir", Path: root, Err: err}}
	}
	var st unix.Stat_t
	if err := lstat(root, &st); err != nil {
		return "", &TmpDirError{Path: root, Err: &fs.PathError{Op: "lstat", Path: root, Err: err}}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR || int(st.Uid) != os.Getuid() || st.Mode&0o077 != 0 {
		return "", &TmpDirError{Path: root, Err: errors.New("not a directory of this user's with mode 0700 (a symlink, someone else's, or open to others); remove it")}
	}
	var self startBuf
	if !startTime(os.Getpid(), &self) {
		return "", &TmpDirError{Path: root, Err: errors.New("cannot read this process's start time from /proc")}
	}
	sweepTmp(root)
	dir := filepath.Join(root, strconv.Itoa(os.Getpid())+"-"+self.String())
	// It exists already only when this process prepared a run before
	// (tests do): the root is this user's alone.
	if err := mkdir(dir); err != nil && err != unix.EEXIST {
		return "", &TmpDirError{Path: dir, Err: &fs.PathError{Op: "mkdir", Path: dir, Err: err}}
	}
	return dir, nil
}

func mkdir(path string) error {
	for {
		if err := unix.Mkdir(path, 0o700); err != unix.EINTR {
			return err
		}
	}
}

func lstat(path string, st *unix.Stat_t) error {
	for {
		if err := unix.Lstat(path, st); err != unix.EINTR {
			return err
		}
	}
}

// sweepTmp removes the directories under root whose tool no longer runs.
// Names it does not recognise are left alone.
func sweepTmp(root string) {
	for _, name := range tmpEntries(root) {
		pid, start, ok := strings.Cut(name, "-")
		n, err := strconv.Atoi(pid)
		if !ok || err != nil || n <= 0 {
			continue
		}
		var cur startBuf
		if startTime(n, &cur) && cur.String() == start {
			continue
		}
		// Most tools leave their directory empty: one rmdir. os.RemoveAll
		// would try unlink first (EISDIR) on every exec.
		dir := filepath.Join(root, name)
		if unix.Rmdir(dir) != nil {
			_ = os.RemoveAll(dir)
		}
	}
}

// tmpEntries lists root's entries other than . and .. (nil when it cannot
// be read), reading the directory into the run's scratch buffer.
func tmpEntries(root string) []string {
	fd, err := openRetry(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW)
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	buf, release := takeScratch()
	defer release()
	var names []string
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return names
		}
		// ParseDirent copies each name into a string of its own.
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
}

// startBuf holds a start time as text (a decimal count of clock ticks:
// at most 20 digits).
type startBuf struct {
	b [24]byte
	n int
}

func (s *startBuf) String() string { return string(s.b[:s.n]) }

// startTime reads field 22 of /proc/PID/stat (clock ticks since boot)
// into out; false when the process does not exist. The file is read into
// a buffer on the stack: a stat line is a few hundred bytes (comm, the
// only field that is not a number, is at most 64).
func startTime(pid int, out *startBuf) bool {
	var path [32]byte
	p := append(append(append(path[:0], "/proc/"...), strconv.Itoa(pid)...), "/stat"...)
	fd, err := openRetry(string(p), unix.O_RDONLY|unix.O_CLOEXEC)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	var b [2048]byte
	n, err := readFD(fd, b[:])
	if err != nil {
		return false
	}
	return parseStartTime(b[:n], out)
}

// parseStartTime finds field 22 of a /proc/PID/stat line. comm (field 2)
// may hold spaces and parentheses: fields resume after the last ')'.
func parseStartTime(b []byte, out *startBuf) bool {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return false
	}
	b = b[i+1:]
	for field := 3; ; field++ {
		for len(b) > 0 && (b[0] == ' ' || b[0] == '\n') {
			b = b[1:]
		}
		end := 0
		for end < len(b) && b[end] != ' ' && b[end] != '\n' {
			end++
		}
		if end == 0 {
			return false
		}
		if field == 22 {
			if end > len(out.b) {
				return false
			}
			out.n = copy(out.b[:], b[:end])
			return true
		}
		b = b[end:]
	}
}
