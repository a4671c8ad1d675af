package jpdirs

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// GitScanLimit bounds NestedGitDirs: the entries it looks at before it
// gives up (and says so), so a writable grant over a huge tree costs a
// bounded walk. A walk cut short cannot promise anything about what lies
// past it, so exec refuses to run unless --best-effort. A variable only so
// that jp-policy's script tests can lower it (SetGitScanLimitForTest).
var GitScanLimit = 500_000

// SetGitScanLimitForTest lowers GitScanLimit; only test binaries call it.
func SetGitScanLimitForTest(n int) { GitScanLimit = n }

// NestedGitDirs returns every `.git` (a directory or a file) strictly
// below root, at any depth, without following symlinks and without
// descending into a `.git` it found: the git directories of repositories
// nested in a writable tree (plain clones, submodules added from an
// existing clone, whose `.git` is a directory). git reads their config
// and runs their hooks when the user next runs git there (and `git
// status` at the top recurses into submodules), outside any sandbox.
// Also a repository with no `.git` name, a bare one (a HEAD beside
// objects and refs, or beside a commondir file: isBare; the directory is
// returned), and the target of a
// `.git` symlink, resolved (git follows it). The
// top `.git` of root is not included (the caller protects it by name).
// complete is false when the walk stopped at limit entries. maxDepth > 0
// stops the walk that many directories below root.
func NestedGitDirs(root string, limit, maxDepth int) (found []string, complete bool) {
	return (&GitScan{}).walk(root, limit, maxDepth, true)
}

// NestedGitEntries is NestedGitDirs with each repository named by the
// entry that makes it one, never followed: a `.git` symlink itself (not
// its target), and for a bare repository its HEAD. It is what may be
// moved aside when the tool made it (renaming HEAD unmakes a bare
// repository without moving a directory that may hold other files).
func NestedGitEntries(root string, limit int) (found []string, complete bool) {
	return (&GitScan{}).Entries(root, limit)
}

// A GitScan walks trees for nested repositories as NestedGitEntries does,
// remembering what each directory held (gitscan.go): a later walk by the
// same GitScan, or by one loaded from what it saved, reads again only
// the directories that changed since.
type GitScan struct {
	// prev are the listings of the walks this scan was given (Load, or
	// its own earlier walks), taken no earlier than since.
	prev  map[string]*gitDir
	since time.Time
	// next are the listings of this scan's walks, from start on.
	next  map[string]*gitDir
	start time.Time
	// read counts the directories its walks read rather than reused.
	read int
	// jp is what the last walk found of JP's (JPConfig).
	jp []string
	// fsKeeps caches keepsCtime by device.
	fsKeeps map[uint64]bool
}

// Entries is NestedGitEntries through the scan's listings.
func (g *GitScan) Entries(root string, limit int) (found []string, complete bool) {
	return g.walk(root, limit, 0, false)
}

// gitDir is what a walk needs of one directory: its identity when it was
// read (dev, inode and change time: gitscan.go), how many entries it
// held, and, sorted by name, the entries that matter (gitDirEnt).
type gitDir struct {
	Key  dirKey   `json:"k"`
	N    int      `json:"n"`
	Ents []gitEnt `json:"e,omitempty"`
}

type gitEnt struct {
	Name string      `json:"n"`
	Type fs.FileMode `json:"t"` // the type bits only
}

func (g *GitScan) walk(root string, limit, maxDepth int, resolve bool) (found []string, complete bool) {
	g.jp = nil
	if g.next == nil {
		g.next = map[string]*gitDir{}
		g.start = time.Now()
	}
	n := 1 // root itself
	var visit func(dir string, depth int) bool
	visit = func(dir string, depth int) bool {
		d := g.list(dir)
		if d == nil {
			return true // gone, or another user's that the caller cannot list (limits.md)
		}
		n += d.N
		if n > limit {
			return false
		}
		bare := dir != root && isBare(d.Ents)
		for _, e := range d.Ents {
			p := filepath.Join(dir, e.Name)
			switch {
			case e.Name == "HEAD" && !e.Type.IsDir():
				// A repository without a `.git` name (a bare clone, a
				// mirror): git run in it obeys its config and runs its
				// hooks (post-receive on a push to it). Its directories
				// are walked still: a repository the tool nests in one it
				// made stays found once the outer one's HEAD is moved
				// aside.
				if !bare {
					continue
				}
				if resolve {
					found = append(found, dir)
				} else {
					found = append(found, p)
				}
			case dir != root && isJPName(e.Name) && (e.Type.IsDir() || e.Type.IsRegular()):
				// A nested JP workspace (`.jp`) or `.jp.*` layer: JP
				// reads it when run below here. Not walked: kept
				// read-only whole (JPConfig).
				g.jp = append(g.jp, p)
			case e.Name == ".git":
				if dir == root {
					continue // the caller protects it by name
				}
				switch t := e.Type; {
				case t.IsDir() || t.IsRegular():
					found = append(found, p)
				case t&fs.ModeSymlink != 0 && !resolve:
					found = append(found, p)
				case t&fs.ModeSymlink != 0:
					// git follows a `.git` symlink: what it points to is
					// the repository (or its gitdir file), wherever it
					// lives.
					if real, err := filepath.EvalSymlinks(p); err == nil {
						found = append(found, real)
					}
				}
			case e.Type.IsDir():
				if maxDepth > 0 && depth+1 >= maxDepth {
					continue
				}
				if !visit(p, depth+1) {
					return false
				}
			}
		}
		return true
	}
	complete = visit(root, 0)
	return found, complete
}

// JPConfig lists what the last walk found of JP's own below its root
// (not at it): each nested `.jp` directory (another workspace, whose
// config JP reads when run there) and `.jp.*` file (a layer JP reads when
// run in or below its directory). Like a nested repository's git
// directory, a tool must not write them (attack_nested_jp_config.txtar).
func (g *GitScan) JPConfig() []string { return g.jp }

// isJPName tells whether a name is JP's: `.jp`, or a `.jp.` file (the
// `.jp.toml` layer under any extension).
func isJPName(name string) bool {
	return name == ".jp" || strings.HasPrefix(name, ".jp.")
}

// isBare tells whether a directory holding ents may be a git directory
// by git's own test (is_git_directory), taken wide: a HEAD that is not a
// directory (git takes a file, or a symlink into refs/) beside objects
// and refs of any type (git only asks access(X_OK), which a symlink to a
// directory passes), or beside a `commondir` file (then git looks for
// objects and refs in the directory it names, wherever that is).
func isBare(ents []gitEnt) bool {
	has := func(name string) (fs.FileMode, bool) {
		i, ok := slices.BinarySearchFunc(ents, name, func(e gitEnt, n string) int {
			switch {
			case e.Name < n:
				return -1
			case e.Name > n:
				return 1
			}
			return 0
		})
		if !ok {
			return 0, false
		}
		return ents[i].Type, true
	}
	head, ok := has("HEAD")
	if !ok || head.IsDir() {
		return false
	}
	if _, ok := has("commondir"); ok {
		return true
	}
	_, objects := has("objects")
	_, refs := has("refs")
	return objects && refs
}

// gitDirEnt tells whether an entry matters to the walk: a directory, a
// `.git` of any type, and the names isBare looks at.
func gitDirEnt(name string, t fs.FileMode) bool {
	switch name {
	case ".git", "HEAD", "objects", "refs", "commondir":
		return true
	}
	return t.IsDir() || isJPName(name)
}

// readGitDir reads directory p: its identity first, then its entries, so
// that a change made while it is read shows as a changed identity next
// time. A symlink is not followed: one swapped in for a directory after
// its parent was listed would take the walk, and what is moved aside
// after the run, outside the tree.
func readGitDir(p string) *gitDir {
	f, err := openOwnDir(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.IsDir() {
		return nil
	}
	key, _ := keyOf(fi)
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil
	}
	d := &gitDir{Key: key, N: len(ents)}
	for _, e := range ents {
		t := e.Type()
		if gitDirEnt(e.Name(), t) {
			d.Ents = append(d.Ents, gitEnt{Name: e.Name(), Type: t})
		}
	}
	slices.SortFunc(d.Ents, func(a, b gitEnt) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return d
}
