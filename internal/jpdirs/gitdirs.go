package jpdirs

import (
	"io/fs"
	"path/filepath"
	"strings"
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
// status` at the top recurses into submodules), outside any sandbox. The
// top `.git` of root is not included (the caller protects it by name).
// complete is false when the walk stopped at limit entries. maxDepth > 0
// stops the walk that many directories below root.
func NestedGitDirs(root string, limit, maxDepth int) (found []string, complete bool) {
	n := 0
	complete = true
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // an unreadable directory: the tool cannot write there either
		}
		n++
		if n > limit {
			complete = false
			return filepath.SkipAll
		}
		if d.Name() != ".git" || p == root {
			if maxDepth > 0 && d.IsDir() && p != root && depthBelow(root, p) >= maxDepth {
				return filepath.SkipDir
			}
			return nil
		}
		if filepath.Dir(p) != root {
			if t := d.Type(); t.IsDir() || t.IsRegular() {
				found = append(found, p)
			}
		}
		if d.IsDir() {
			return filepath.SkipDir
		}
		return nil
	})
	return found, complete
}

// depthBelow is how many names p has below root (p is beneath root).
func depthBelow(root, p string) int {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return 0
	}
	return len(strings.Split(rel, string(filepath.Separator)))
}
