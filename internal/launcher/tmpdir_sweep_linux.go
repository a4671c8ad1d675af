//go:build linux

package launcher

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Every exec gets a private writable temporary directory, exported as
// TMPDIR (an addition to RFD 075's minimal environment: /tmp is outside
// every grant, and compilers, test runners and package managers write
// there).
//
// On the namespaced path it is the private tmpfs on /tmp, which goes away
// with the mount namespace. On the fast path it is
// <os.TempDir()>/jp-policy-<uid>/<workspace key>/<pid>-<start time>: the
// tool keeps the launcher's pid across execve, and the start time (field
// 22 of /proc/PID/stat) tells a reused pid apart. The user's root is
// created 0700 and refused when it is a symlink, someone else's or open
// to others, so no other user can plant or read anything there.
//
// Each exec sweeps the directories of its workspace's tools that no
// longer run, within a budget of system calls and time (sweepOps,
// sweepTime): a process a tool left behind can fill its directory faster
// than any sweep empties it, so what is left over is removed a budget at
// a time by the following execs, and an exec never waits longer than the
// budget. Workspaces have directories of their own, so what a tool leaves
// in one never costs the calls of another anything.

// The sweep's budget per exec: system calls, and wall time checked every
// few calls.
const (
	sweepOps  = 512
	sweepTime = 2 * time.Millisecond
	// sweepDepth bounds the recursion into a leftover tree; anything
	// deeper stays (in this workspace's directory, which only this
	// workspace's execs look at).
	sweepDepth = 32
)

// TmpRoot is this user's root of per-exec directories.
func TmpRoot() string {
	return filepath.Join(os.TempDir(), "jp-policy-"+strconv.Itoa(os.Getuid()))
}

// TmpWorkspaceDir is the directory under root that holds workspace's
// per-exec directories.
func TmpWorkspaceDir(root, workspace string) string {
	sum := sha256.Sum256([]byte(workspace))
	return filepath.Join(root, hex.EncodeToString(sum[:8]))
}

// FastTmpDir creates this process's private directory for a run in
// workspace under root (after sweeping, within the budget, those of the
// workspace's tools that have exited) and returns it.
func FastTmpDir(root, workspace string) (string, error) {
	if err := ownDir(root); err != nil {
		return "", err
	}
	ws := TmpWorkspaceDir(root, workspace)
	if err := ownDir(ws); err != nil {
		return "", err
	}
	self, ok := startTime(os.Getpid())
	if !ok {
		return "", &TmpDirError{Path: root, Err: errors.New("cannot read this process's start time from /proc")}
	}
	sweepTmp(ws, &budget{ops: sweepOps, until: time.Now().Add(sweepTime)})
	dir := filepath.Join(ws, strconv.Itoa(os.Getpid())+"-"+self)
	// It exists already only when this process prepared a run before
	// (tests do): the directory is this user's alone.
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", &TmpDirError{Path: dir, Err: err}
	}
	return dir, nil
}

// ownDir makes dir (mode 0700) if it is missing and checks that it is a
// directory of this user's that no one else may open.
func ownDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return &TmpDirError{Path: dir, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		return &TmpDirError{Path: dir, Err: &fs.PathError{Op: "lstat", Path: dir, Err: err}}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR || int(st.Uid) != os.Getuid() || st.Mode&0o077 != 0 {
		return &TmpDirError{Path: dir, Err: errors.New("not a directory of this user's with mode 0700 (a symlink, someone else's, or open to others); remove it")}
	}
	return nil
}

// budget is what one sweep may spend.
type budget struct {
	ops   int
	until time.Time
}

// spend takes one system call from b; false once b is exhausted.
func (b *budget) spend() bool {
	if b.ops <= 0 {
		return false
	}
	b.ops--
	if b.ops%16 == 0 && time.Now().After(b.until) {
		b.ops = 0
	}
	return true
}

// sweepTmp removes, within b, the directories under dir whose tool no
// longer runs. Names it does not recognise are left alone.
func sweepTmp(dir string, b *budget) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	eachName(fd, b, func(name string) bool {
		pid, start, ok := strings.Cut(name, "-")
		n, err := strconv.Atoi(pid)
		if !ok || err != nil || n <= 0 {
			return true
		}
		if cur, ok := startTime(n); ok && cur == start {
			return true
		}
		return removeTree(fd, name, b, 0)
	})
}

// eachName calls f with the names in the directory open at fd (without .
// and ..), a batch per getdents call and a unit of b per call, until f
// returns false or b is exhausted. A directory that holds more names than
// the budget reaches is never read whole.
func eachName(fd int, b *budget, f func(name string) bool) {
	buf := make([]byte, 4<<10)
	for b.spend() {
		n, err := unix.Getdents(fd, buf)
		if err != nil || n <= 0 {
			return
		}
		_, _, names := unix.ParseDirent(buf[:n], -1, nil)
		for _, name := range names {
			if !f(name) {
				return
			}
		}
	}
}

// removeTree removes name in the directory open at dirfd and everything
// beneath it, never following a symlink (every step is relative to a
// descriptor opened with O_NOFOLLOW), within b. It reports whether name
// is gone.
func removeTree(dirfd int, name string, b *budget, depth int) bool {
	if !b.spend() {
		return false
	}
	err := unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR)
	switch err {
	case nil, unix.ENOENT:
		return true
	case unix.ENOTDIR:
		return b.spend() && unix.Unlinkat(dirfd, name, 0) == nil
	case unix.ENOTEMPTY, unix.EEXIST:
	default:
		return false
	}
	if depth >= sweepDepth || !b.spend() {
		return false
	}
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	gone := true
	eachName(fd, b, func(child string) bool {
		gone = removeTree(fd, child, b, depth+1)
		return gone
	})
	return gone && b.spend() && unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR) == nil
}

// startTime reads field 22 of /proc/PID/stat (clock ticks since boot);
// false when the process does not exist.
func startTime(pid int) (string, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", false
	}
	return parseStartTime(b)
}

// parseStartTime finds field 22 of a /proc/PID/stat line. comm (field 2)
// may hold spaces and parentheses: fields resume after the last ')'.
func parseStartTime(b []byte) (string, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return "", false
	}
	fields := strings.Fields(string(b[i+1:]))
	if len(fields) < 20 { // fields 3..22
		return "", false
	}
	f := fields[19]
	if _, err := strconv.ParseUint(f, 10, 64); err != nil {
		return "", false
	}
	return f, true
}
