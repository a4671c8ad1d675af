package launcher

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/jp-policy/jp-policy/internal/plan/landlock"
	"github.com/jp-policy/jp-policy/internal/termstyle"
)

// absentGit lists the `.git` at the top of each writable bind that does
// not exist when the namespaced run starts. A `.git` that is not there is
// no mount point the root can keep read-only, and a tool could create
// one, with core.fsmonitor or a hook set, that the user's next git
// command there (or a git-aware shell prompt) runs unsandboxed. A rule
// cannot ask for one either: compile grants nothing on a path that does
// not exist. The user makes the repository; exec then keeps it read-only
// unless a rule names it.
func absentGit(ns *landlock.NSPlan) []string {
	var out []string
	for _, b := range ns.Binds {
		if !b.RW {
			continue
		}
		g := filepath.Join(b.Path, ".git")
		if _, err := os.Lstat(g); os.IsNotExist(err) {
			out = append(out, g)
		}
	}
	return out
}

// quarantineNewGit runs once the namespaced run is over, when the PID
// namespace has ended every process the tool started: a `.git` in
// absent that exists now was made by the tool, and is renamed aside
// before exec returns, so no git command runs what it holds. The user is
// told where it went.
func quarantineNewGit(absent []string) {
	for _, g := range absent {
		if _, err := os.Lstat(g); err != nil {
			continue
		}
		to, err := moveAside(g)
		if err != nil {
			fmt.Fprintf(os.Stderr, "jp-policy: warning: the tool created %s and it could not be moved aside (%v): remove it before you run git there; git would run code from it as you\n", termstyle.Safe(g), err)
			continue
		}
		fmt.Fprintf(os.Stderr, "jp-policy: the tool created %s, which git would run code from as you; moved to %s (a tool cannot make a repository: run git init yourself, and exec keeps it read-only unless a rule names .git)\n", termstyle.Safe(g), termstyle.Safe(to))
	}
}

// quarantineNewNestedGit is quarantineNewGit for the repositories below
// the top of the writable binds: it walks them again once the run is
// over and moves aside each entry that makes a repository (a `.git`, a
// bare repository's HEAD, jpdirs.NestedGitEntries) that the walk at the
// start (before) did not see. A tool that ran `git init src/lib` and set
// core.fsmonitor there got it run by the user's next git command in
// src/lib, or by a git-aware prompt on `cd` (attack_nested_new_git.txtar).
// Nothing is followed: a `.git` symlink is moved, not what it names (the
// tool chooses that, and could name a file it may not write), and a bare
// repository loses its HEAD, not its directory (the tool may have made
// HEAD, objects/ and refs/ in a directory of the user's). An entry is
// the one seen at the start only if it is the same file (gitEntryIDs): a
// `.git` symlink of the user's, in a directory the tool may write, could
// be replaced by a `.git` directory of the tool's at the same path.
// Skipped when the walk at the start was cut short (--best-effort): a
// repository the user made past its bound would look new.
func quarantineNewNestedGit(scans *gitScans, before map[string]gitEntryID) {
	had := make(map[string]bool, len(before))
	inside := func(p string) bool {
		for _, d := range scans.roots {
			if strings.HasPrefix(p, strings.TrimSuffix(d, "/")+"/") {
				return true
			}
		}
		return false
	}
	var fresh []string
	for _, d := range scans.roots {
		// Unbounded: the walk at the start held at most the bound (or the
		// run was refused), so what lies past it the tool made during the
		// run, at a cost higher than walking it; a bound here would let it
		// hide a repository behind entries it made.
		scan := scans.scan[d]
		scan.Reuse() // compared with the walk at the start
		found, _ := scan.Entries(d, math.MaxInt)
		for _, g := range found {
			if id, ok := before[g]; ok && id == entryID(g) {
				continue
			}
			if !had[g] && inside(g) {
				had[g] = true
				fresh = append(fresh, g)
			}
		}
	}
	quarantineNewGit(fresh)
	scans.save()
}

// gitEntryID is which file an entry that makes a repository is: its
// device, inode and type, never followed.
type gitEntryID struct {
	Dev, Ino uint64
	Mode     os.FileMode
}

// entryID is p's gitEntryID; the zero one when p is gone.
func entryID(p string) gitEntryID {
	fi, err := os.Lstat(p)
	if err != nil {
		return gitEntryID{}
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return gitEntryID{}
	}
	return gitEntryID{Dev: uint64(st.Dev), Ino: st.Ino, Mode: fi.Mode().Type()}
}

// gitEntryIDs are the identities of the entries the walk at the start
// found, for quarantineNewNestedGit.
func gitEntryIDs(entries []string) map[string]gitEntryID {
	m := make(map[string]gitEntryID, len(entries))
	for _, e := range entries {
		m[e] = entryID(e)
	}
	return m
}

// moveAside renames g to a new name beside it and returns that name. The
// tool owned what it left and may have made it hard to move: the rename
// goes through the parent directory's descriptor (a `.git` whose path
// just fits PATH_MAX has a quarantine name that does not), takes back
// write and search on a parent of the caller's whose mode keeps it out
// (chmod 555), and never replaces what is at the new name.
func moveAside(g string) (string, error) {
	dir, base := filepath.Split(g)
	d, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return "", err
	}
	defer d.Close()
	fd := int(d.Fd())
	chmodded := false
	for tries := 0; ; tries++ {
		to := base + ".jp-policy-quarantine-" + strconv.FormatInt(time.Now().UnixNano(), 36)
		err := unix.Renameat2(fd, base, fd, to, unix.RENAME_NOREPLACE)
		if err == unix.EINVAL {
			// A filesystem without RENAME_NOREPLACE: the name is new
			// by its clock reading all the same.
			err = unix.Renameat(fd, base, fd, to)
		}
		switch {
		case err == nil:
			return filepath.Join(dir, to), nil
		case err == unix.EEXIST && tries < 8:
			continue
		case (err == unix.EACCES || err == unix.EPERM) && !chmodded:
			chmodded = true
			var st unix.Stat_t
			if unix.Fstat(fd, &st) == nil && int(st.Uid) == os.Geteuid() && unix.Fchmod(fd, st.Mode&0o7777|0o700) == nil {
				continue
			}
		}
		return "", err
	}
}
