package jpdirs

import (
	"io/fs"
	"os"
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
// status` at the top recurses into submodules), outside any sandbox.
// Also a repository with no `.git` name, a bare one (a HEAD file beside
// objects/ and refs/: the directory is returned), and the target of a
// `.git` symlink, resolved (git follows it). The
// top `.git` of root is not included (the caller protects it by name).
// complete is false when the walk stopped at limit entries. maxDepth > 0
// stops the walk that many directories below root.
func NestedGitDirs(root string, limit, maxDepth int) (found []string, complete bool) {
	return nestedGit(root, limit, maxDepth, true)
}

// NestedGitEntries is NestedGitDirs with each repository named by the
// entry that makes it one, never followed: a `.git` symlink itself (not
// its target), and for a bare repository its HEAD file. It is what may be
// moved aside when the tool made it (renaming HEAD unmakes a bare
// repository without moving a directory that may hold other files).
func NestedGitEntries(root string, limit int) (found []string, complete bool) {
	return nestedGit(root, limit, 0, false)
}

func nestedGit(root string, limit, maxDepth int, resolve bool) (found []string, complete bool) {
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
		if d.Name() == "HEAD" && d.Type().IsRegular() && filepath.Dir(p) != root && isBareRepo(filepath.Dir(p)) {
			// A repository without a `.git` name (a bare clone, a
			// mirror): git run in it obeys its config and runs its hooks
			// (post-receive on a push to it). The rest of it is not
			// walked.
			if resolve {
				found = append(found, filepath.Dir(p))
			} else {
				found = append(found, p)
			}
			return filepath.SkipDir
		}
		if d.Name() != ".git" || p == root {
			if maxDepth > 0 && d.IsDir() && p != root && depthBelow(root, p) >= maxDepth {
				return filepath.SkipDir
			}
			return nil
		}
		if filepath.Dir(p) != root {
			switch t := d.Type(); {
			case t.IsDir() || t.IsRegular():
				found = append(found, p)
			case t&fs.ModeSymlink != 0 && !resolve:
				found = append(found, p)
			case t&fs.ModeSymlink != 0:
				// git follows a `.git` symlink: what it points to is the
				// repository (or its gitdir file), wherever it lives.
				if real, err := filepath.EvalSymlinks(p); err == nil {
					found = append(found, real)
				}
			}
		}
		if d.IsDir() {
			return filepath.SkipDir
		}
		return nil
	})
	return found, complete
}

// isBareRepo tells whether dir is a git directory by git's own test
// (is_git_directory): a HEAD file beside objects/ and refs/.
func isBareRepo(dir string) bool {
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Lstat(filepath.Join(dir, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// depthBelow is how many names p has below root (p is beneath root).
func depthBelow(root, p string) int {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return 0
	}
	return len(strings.Split(rel, string(filepath.Separator)))
}
