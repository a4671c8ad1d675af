package lint

import (
	"io/fs"
	"path/filepath"
)

// maxWalk bounds how many entries one tree walk visits, so lint stays
// fast on a huge workspace or a mount of a large directory. Files past
// the bound are not examined for sensitive names; the bound is documented
// in docs/rules.md.
const maxWalk = 100000

// wsIndex lists the files under a directory tree, relative and
// slash-separated, without following symlinks (a link is listed as an
// entry, never entered: mounts are walked from their own rule).
type wsIndex struct {
	files     []string
	truncated bool
}

// skipDirs are not entered: git's object store holds no user files, and
// walking it would dominate lint's run time in every repository.
func skipDir(name string) bool { return name == ".git" }

func walkTree(dir string) *wsIndex {
	if ix, ok := walkTreeDirents(dir); ok {
		return ix
	}
	return walkTreePortable(dir)
}

// walkTreePortable is walkTree through filepath.WalkDir, the definition
// walkTreeDirents must agree with (TestWalkTreeDirentsMatchesWalkDir).
func walkTreePortable(dir string) *wsIndex {
	ix := &wsIndex{}
	if dir == "" {
		return ix
	}
	n := 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			// Unreadable entries are skipped: lint reports what it can see.
			if d != nil && d.IsDir() && p != dir {
				return fs.SkipDir
			}
			return nil
		}
		if p == dir {
			return nil
		}
		n++
		if n > maxWalk {
			ix.truncated = true
			return fs.SkipAll
		}
		if d.IsDir() {
			if skipDir(d.Name()) {
				return fs.SkipDir
			}
			return nil
		}
		// WalkDir names every entry dir + separator + rest: slice it
		// rather than allocate a new string per file with filepath.Rel.
		if len(p) > len(dir) && p[:len(dir)] == dir && p[len(dir)] == filepath.Separator {
			ix.files = append(ix.files, filepath.ToSlash(p[len(dir)+1:]))
		} else if rel, err := filepath.Rel(dir, p); err == nil {
			ix.files = append(ix.files, filepath.ToSlash(rel))
		}
		return nil
	})
	return ix
}

// workspace returns the lazily built index of the workspace root.
func (st *state) workspace() *wsIndex {
	if st.ws == nil {
		st.ws = walkTree(st.root)
	}
	return st.ws
}

// tree returns the lazily built index of an external target.
func (st *state) tree(abs string) *wsIndex {
	if st.trees == nil {
		st.trees = map[string]*wsIndex{}
	}
	ix, ok := st.trees[abs]
	if !ok {
		ix = walkTree(abs)
		st.trees[abs] = ix
	}
	return ix
}
