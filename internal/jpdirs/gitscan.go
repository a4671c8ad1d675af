package jpdirs

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"time"
)

// The walk for nested repositories (GitScan) runs before every namespaced
// run and again after it, over every writable grant: on a large tree it
// cost more than the run. A GitScan remembers each directory's listing
// with its identity, its device, inode and change time (ctime), and reads
// again only a directory whose identity changed; the others it stats.
//
// Why ctime, and why that suffices: on a local filesystem (keepsCtime) a
// directory's ctime is set, to the kernel's clock, by every change to its entries (create, remove, rename
// in or out, a hard link) and to its inode (chmod, and utimensat itself:
// setting the mtime back moves the ctime forward), and no call lets a
// process set it. A `.git` the tool makes at any depth changes the ctime
// of the directory it is made in, or is inside a directory that is new
// at its path (whose parent's ctime changed) or another inode (a
// rename); every directory is stat'ed on every walk, so the walk reads
// again the one whose listing changed and walks what is new below it.
//
// The clock is coarse (a tick, or a second on some filesystems), so a
// change made in the same tick as a listing was read could leave the
// ctime as it was: a listing whose ctime is not older than its walk's
// start by racyMargin is never trusted (git's "racy clean" rule). A
// listing whose ctime is older keeps it only while nothing changes: a
// later change stamps a time past the walk's start.
//
// A saved scan lives under jp-policy's data directory (a protected path:
// no tool may write it), keyed by the tree's root, with a checksum; one
// that does not decode, or names another root, is not used.

// racyMargin is how much older than its walk's start a directory's ctime
// must be for its listing to be reused (above any filesystem's timestamp
// granularity). A variable only so that jp-policy's script tests, whose
// trees are seconds old, can use listings (SetGitScanMarginForTest).
var racyMargin = 3 * time.Second

// SetGitScanMarginForTest sets racyMargin; only test binaries call it.
func SetGitScanMarginForTest(d time.Duration) { racyMargin = d }

// dirKey is a directory's identity; the zero key (a platform without
// inode numbers or ctime) never matches.
type dirKey struct {
	Dev   uint64 `json:"d"`
	Ino   uint64 `json:"i"`
	Ctime int64  `json:"c"` // nanoseconds since the epoch
}

// list returns the listing of directory p: the one remembered when its
// identity is unchanged and its ctime older than its walk by racyMargin,
// otherwise read now. It is remembered for the next walk either way.
func (g *GitScan) list(p string) *gitDir {
	if d := g.prev[p]; d != nil && d.Key != (dirKey{}) && d.Key.Ctime < g.since.Add(-racyMargin).UnixNano() {
		if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
			if k, ok := keyOf(fi); ok && k == d.Key && g.keepsCtime(k.Dev, p) {
				g.next[p] = d
				return d
			}
		}
	}
	d := readGitDir(p)
	if d != nil {
		g.next[p] = d
	}
	g.read++
	return d
}

// keepsCtime tells whether the filesystem of device dev (holding p) is
// one whose directory ctime the kernel itself keeps (ctimeKept), asked
// once per device. A FUSE or network filesystem reports what its server
// says: one that keeps a directory's ctime fixed (object stores mounted
// as file systems do) would have a listing reused after a `.git` was
// made in it, so there every directory is read again.
func (g *GitScan) keepsCtime(dev uint64, p string) bool {
	if k, ok := g.fsKeeps[dev]; ok {
		return k
	}
	if g.fsKeeps == nil {
		g.fsKeeps = map[uint64]bool{}
	}
	k := ctimeKept(p)
	g.fsKeeps[dev] = k
	return k
}

// Reuse makes the listings of g's walks so far those a later walk by g
// compares with (after the run, with what was there before it).
func (g *GitScan) Reuse() {
	g.prev, g.since = g.next, g.start
	g.next = nil
}

// savedScan is a GitScan on disk, its directories by their path below
// Root ("" for Root itself).
type savedScan struct {
	V     int // gitScanVersion: listings kept by an older walk lack entries it looks at
	Root  string
	Since int64 // nanoseconds since the epoch
	Dirs  map[string]*gitDir
}

// gitScanVersion changes whenever what a listing keeps (gitDirEnt)
// does: a saved listing without an entry the walk now looks at would hide
// it.
const gitScanVersion = 3

// GitScanFile is where the scan of the tree at root is saved under
// jp-policy's data directory dataDir.
func GitScanFile(dataDir, root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(PolicyDataDir(dataDir), "gitscan", hex.EncodeToString(sum[:16]))
}

// LoadGitScan returns a scan holding the listings saved for root in file,
// or an empty one when there are none (or they do not check out).
func LoadGitScan(file, root string) *GitScan {
	g := &GitScan{}
	b, err := os.ReadFile(file)
	if err != nil || len(b) < sha256.Size {
		return g
	}
	body, sum := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if s := sha256.Sum256(body); !bytes.Equal(s[:], sum) {
		return g
	}
	var s savedScan
	if json.Unmarshal(body, &s) != nil || s.V != gitScanVersion || s.Root != root {
		return g
	}
	g.prev = make(map[string]*gitDir, len(s.Dirs))
	for rel, d := range s.Dirs {
		g.prev[filepath.Join(root, rel)] = d
	}
	g.since = time.Unix(0, s.Since)
	return g
}

// Save writes the listings of g's walks so far for root to file (0600,
// its directory 0700), replacing it whole. Nothing is saved when g has
// not walked, nor when its walks reused every listing they were given:
// what they were given still holds.
func (g *GitScan) Save(file, root string) error {
	if g.next == nil {
		return errors.New("no walk to save")
	}
	if g.read == 0 {
		return nil
	}
	dirs := make(map[string]*gitDir, len(g.next))
	for p, d := range g.next {
		switch rel, err := filepath.Rel(root, p); {
		case err != nil:
		case rel == ".":
			dirs[""] = d
		case filepath.IsLocal(rel):
			dirs[rel] = d
		}
	}
	b, err := json.Marshal(savedScan{V: gitScanVersion, Root: root, Since: g.start.UnixNano(), Dirs: dirs})
	if err != nil {
		return err
	}
	sum := sha256.Sum256(b)
	b = append(b, sum[:]...)
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	// A cache: a torn write after a crash fails the checksum, so no
	// fsync.
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(file)+".*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(b)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), file)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}
