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
	"syscall"
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

// TmpRoot is this user's root of per-exec directories.
func TmpRoot() string {
	return filepath.Join(os.TempDir(), "jp-policy-"+strconv.Itoa(os.Getuid()))
}

// FastTmpDir creates this process's private directory under root (after
// sweeping those of tools that have exited) and returns it.
func FastTmpDir(root string) (string, error) {
	if err := os.Mkdir(root, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", &TmpDirError{Path: root, Err: err}
	}
	fi, err := os.Lstat(root)
	if err != nil {
		return "", &TmpDirError{Path: root, Err: err}
	}
	st, _ := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || st == nil || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o077 != 0 {
		return "", &TmpDirError{Path: root, Err: errors.New("not a directory of this user's with mode 0700 (a symlink, someone else's, or open to others); remove it")}
	}
	self, ok := startTime(os.Getpid())
	if !ok {
		return "", &TmpDirError{Path: root, Err: errors.New("cannot read this process's start time from /proc")}
	}
	sweepTmp(root)
	dir := filepath.Join(root, strconv.Itoa(os.Getpid())+"-"+self)
	// It exists already only when this process prepared a run before
	// (tests do): the root is this user's alone.
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", &TmpDirError{Path: dir, Err: err}
	}
	return dir, nil
}

// sweepTmp removes the directories under root whose tool no longer runs.
// Names it does not recognise are left alone.
func sweepTmp(root string) {
	es, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range es {
		pid, start, ok := strings.Cut(e.Name(), "-")
		n, err := strconv.Atoi(pid)
		if !ok || err != nil || n <= 0 {
			continue
		}
		if cur, alive := startTime(n); alive && cur == start {
			continue
		}
		_ = os.RemoveAll(filepath.Join(root, e.Name()))
	}
}

// startTime is field 22 of /proc/PID/stat (clock ticks since boot), as
// text; false when the process does not exist.
func startTime(pid int) (string, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", false
	}
	// comm (field 2) may hold spaces and parentheses: fields resume after
	// the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return "", false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 { // f[0] is field 3
		return "", false
	}
	return f[19], true
}
