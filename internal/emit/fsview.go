package emit

import (
	"io/fs"
	"os"
	"sync"
)

// FS is what emitters read of the disk: the kind of a path (without
// following a final symlink) and a directory's entries.
type FS interface {
	Lstat(path string) (fs.FileInfo, error)
	ReadDir(path string) ([]fs.DirEntry, error)
}

// OS reads the disk directly; it is what an emitter uses when a Tool has
// no FS.
var OS FS = osFS{}

type osFS struct{}

func (osFS) Lstat(p string) (fs.FileInfo, error)     { return os.Lstat(p) }
func (osFS) ReadDir(p string) ([]fs.DirEntry, error) { return os.ReadDir(p) }

// FSOf returns t.FS, or OS when it is unset.
func FSOf(t Tool) FS {
	if t.FS != nil {
		return t.FS
	}
	return OS
}

// Why a cache: the compiler emits every tool of a workspace, and most
// tools' rules lie in the same few directories, which the Landlock split
// lists and stats again for every tool (7 directory listings and a
// hundred stats per tool in a typical 1,000-tool workspace). One compile
// is one snapshot of the tree: listing each directory once is both
// cheaper and more consistent than re-reading a tree that may change
// while the compile runs.

// CachedFS remembers every answer of the disk for the life of one
// compile. It is safe for concurrent use. Callers must not modify the
// slices it returns (they are shared).
type CachedFS struct {
	mu    sync.Mutex
	stats map[string]statResult
	dirs  map[string]dirResult
}

type statResult struct {
	fi  fs.FileInfo
	err error
}

type dirResult struct {
	entries []fs.DirEntry
	err     error
}

// NewCachedFS returns an empty cache over the disk.
func NewCachedFS() *CachedFS {
	return &CachedFS{stats: map[string]statResult{}, dirs: map[string]dirResult{}}
}

// Lstat is os.Lstat, once per path.
func (c *CachedFS) Lstat(p string) (fs.FileInfo, error) {
	r := remember(&c.mu, c.stats, p, func() statResult {
		fi, err := os.Lstat(p)
		return statResult{fi, err}
	})
	return r.fi, r.err
}

// ReadDir is os.ReadDir, once per directory.
func (c *CachedFS) ReadDir(p string) ([]fs.DirEntry, error) {
	r := remember(&c.mu, c.dirs, p, func() dirResult {
		entries, err := os.ReadDir(p)
		return dirResult{entries, err}
	})
	return r.entries, r.err
}

// remember returns m[key], computing it with read the first time. The
// lock is not held while reading the disk; two readers of one new key
// may both read it, and agree.
func remember[T any](mu *sync.Mutex, m map[string]T, key string, read func() T) T {
	mu.Lock()
	r, ok := m[key]
	mu.Unlock()
	if !ok {
		r = read()
		mu.Lock()
		m[key] = r
		mu.Unlock()
	}
	return r
}
