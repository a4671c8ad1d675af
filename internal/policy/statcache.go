package policy

import (
	"io/fs"
	"os"
	"sync"
)

// StatCache remembers the file system answers canonicalisation gets
// (lstat, readlink, stat, and each workspace root's canonical form), so a
// caller that binds many rules against a tree it does not change meanwhile
// asks the disk once per distinct path. A compile binds every rule three
// times (lint's binding, lint's checkers, the compiler's binding) and the
// rules of different tools share most of their paths: without it, a
// 1,000-tool workspace made 61,000 stat calls.
//
// It changes nothing in how a path is resolved: BindAll, BindRule,
// Canonicalize and NewChecker on a StatCache run the same code as the
// package functions, which are these methods on a nil *StatCache (the
// live disk). The answers are a snapshot: a path changed after its first
// lookup is seen as it was (TestStatCacheMatchesDisk, FuzzStatCache). So
// use one for one pass over a tree (a compile), never for decisions at
// run time: a Checker made by NewChecker still canonicalises every
// CheckFS input on the live disk. Safe for concurrent use.
type StatCache struct {
	mu       sync.Mutex
	lstats   map[string]lstatAnswer
	links    map[string]readlinkAnswer
	kinds    map[string]BoundKind
	roots    map[string]rootAnswer
	lookups  int // disk lookups made, for tests
	requests int // lookups asked for, for tests
}

type lstatAnswer struct {
	mode fs.FileMode
	err  error
}

type readlinkAnswer struct {
	target string
	err    error
}

type rootAnswer struct {
	canon string
	err   error
}

// NewStatCache returns an empty cache.
func NewStatCache() *StatCache {
	return &StatCache{
		lstats: map[string]lstatAnswer{},
		links:  map[string]readlinkAnswer{},
		kinds:  map[string]BoundKind{},
		roots:  map[string]rootAnswer{},
	}
}

// memo returns m's answer for key, asking f (the disk) the first time.
func memo[V any](c *StatCache, m map[string]V, key string, f func() V) V {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests++
	if v, ok := m[key]; ok {
		return v
	}
	c.lookups++
	v := f()
	m[key] = v
	return v
}

// lstat returns the mode of p's own directory entry (no link followed).
func (c *StatCache) lstat(p string) (fs.FileMode, error) {
	if c == nil {
		return lstatOnDisk(p).answer()
	}
	return memo(c, c.lstats, p, func() lstatAnswer { return lstatOnDisk(p) }).answer()
}

func lstatOnDisk(p string) lstatAnswer {
	fi, err := os.Lstat(p)
	if err != nil {
		return lstatAnswer{err: err}
	}
	return lstatAnswer{mode: fi.Mode()}
}

func (a lstatAnswer) answer() (fs.FileMode, error) { return a.mode, a.err }

func (c *StatCache) readlink(p string) (string, error) {
	if c == nil {
		return os.Readlink(p)
	}
	a := memo(c, c.links, p, func() readlinkAnswer {
		t, err := os.Readlink(p)
		return readlinkAnswer{t, err}
	})
	return a.target, a.err
}

// statKind is what abs is after following links.
func (c *StatCache) statKind(abs string) BoundKind {
	if c == nil {
		return statKindOnDisk(abs)
	}
	return memo(c, c.kinds, abs, func() BoundKind { return statKindOnDisk(abs) })
}

func statKindOnDisk(abs string) BoundKind {
	fi, err := os.Stat(abs)
	switch {
	case err != nil:
		return BoundMissing
	case fi.IsDir():
		return BoundDir
	}
	return BoundFile
}

// CanonicalRoot is the package's CanonicalRoot, remembered per root as
// given (a relative root is resolved against the working directory, which
// a compile does not change).
func (c *StatCache) CanonicalRoot(root string) (string, error) {
	if c == nil {
		return canonicalRootOnDisk(root)
	}
	a := memo(c, c.roots, root, func() rootAnswer {
		canon, err := canonicalRootOnDisk(root)
		return rootAnswer{canon, err}
	})
	return a.canon, a.err
}

// Forget drops every answer about dir and the paths beneath it, for a
// caller that has just created dir: later lookups there ask the disk.
func (c *StatCache) Forget(dir string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for p := range c.lstats {
		if hasPathPrefix(p, dir) {
			delete(c.lstats, p)
		}
	}
	for p := range c.links {
		if hasPathPrefix(p, dir) {
			delete(c.links, p)
		}
	}
	for p := range c.kinds {
		if hasPathPrefix(p, dir) {
			delete(c.kinds, p)
		}
	}
}

// counts reports how many lookups were asked for and how many reached
// the disk.
func (c *StatCache) counts() (requests, lookups int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.requests, c.lookups
}
