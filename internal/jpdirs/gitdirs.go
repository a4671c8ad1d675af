package jpdirs

import (
	"io/fs"
	"path/filepath"
)

// GitScanLimit bounds NestedGitDirs: the entries it looks at before it
// gives up (and says so), so a writable grant over a huge tree costs a
// bounded walk.
const GitScanLimit = 500_000

// NestedGitDirs returns every `.git` (a directory or a file) strictly
// below root, at any depth, without following symlinks and without
// descending into a `.git` it found: the git directories of repositories
// nested in a writable tree (plain clones, submodules added from an
// existing clone, whose `.git` is a directory). git reads their config
// and runs their hooks when the user next runs git there (and `git
// status` at the top recurses into submodules), outside any sandbox. The
// top `.git` of root is not included (the caller protects it by name).
// complete is false when the walk stopped at limit entries.
func NestedGitDirs(root string, limit int) (found []string, complete bool) {
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
