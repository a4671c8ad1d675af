package launcher

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"github.com/jp-policy/jp-policy/internal/emit/landlock"
)

// gitProtected lists, at exec time, the git files a tool must not write
// that the compiled plan cannot know: git reads them, and runs hooks from
// them, unsandboxed on the user's next git command.
//
//   - A `.git` *file* at the top of a writable bind (a linked worktree, a
//     submodule checkout) names its git directory (`gitdir: PATH`): the
//     file itself is protected (rewritten, it would send git to hooks the
//     tool wrote), and so are that directory's `hooks`, `config` and
//     `config.worktree`, and, through its `commondir` file, the shared
//     repository's `hooks` and `config`.
//   - A submodule checkout's `.git` file (its path from `.gitmodules`).
//   - A `.git` directory's submodules live in `.git/modules/NAME` (nested
//     ones in `.../modules/NAME/modules/...`), each with its own `hooks`
//     and `config`; linked worktrees in `.git/worktrees/NAME` have a
//     `config.worktree`.
//
// Only paths that exist are listed (a protected path is a bind of itself);
// WithProtected keeps those under a writable bind. The reading is bounded:
// a `.git` file is read up to its first line, and submodules are followed
// a few levels deep.
func gitProtected(ns *landlock.NSPlan) []string {
	var out []string
	add := func(p string) {
		if _, err := os.Lstat(p); err == nil {
			out = append(out, p)
		}
	}
	for _, b := range ns.Binds {
		if !b.RW {
			continue
		}
		dotgit := filepath.Join(b.Path, ".git")
		fi, err := os.Lstat(dotgit)
		switch {
		case err != nil:
			continue
		case fi.Mode().IsRegular():
			out = append(out, dotgit)
			gd := readGitdir(dotgit)
			if gd == "" {
				continue
			}
			gitDirFiles(gd, add, 0)
		case fi.IsDir():
			gitSubdirs(dotgit, add, 0)
		}
		// Submodule checkouts below the root have a .git file of their
		// own, named by .gitmodules.
		for _, sub := range submodulePaths(filepath.Join(b.Path, ".gitmodules")) {
			if fi, err := os.Lstat(filepath.Join(b.Path, sub, ".git")); err == nil && fi.Mode().IsRegular() {
				out = append(out, filepath.Join(b.Path, sub, ".git"))
			}
		}
	}
	return out
}

// gitDirFiles adds the protected files of git directory gd, of the
// repository it shares (commondir) and of its submodules.
func gitDirFiles(gd string, add func(string), depth int) {
	for _, n := range []string{"hooks", "config", "config.worktree"} {
		add(filepath.Join(gd, n))
	}
	if b, err := os.ReadFile(filepath.Join(gd, "commondir")); err == nil {
		cd := strings.TrimSpace(string(b))
		if !filepath.IsAbs(cd) {
			cd = filepath.Join(gd, cd)
		}
		add(filepath.Join(cd, "hooks"))
		add(filepath.Join(cd, "config"))
	}
	gitSubdirs(gd, add, depth)
}

// gitSubdirs adds what submodules and linked worktrees of git directory
// gd keep there.
func gitSubdirs(gd string, add func(string), depth int) {
	if depth > 4 {
		return
	}
	if es, err := os.ReadDir(filepath.Join(gd, "worktrees")); err == nil {
		for _, e := range es {
			if e.IsDir() {
				add(filepath.Join(gd, "worktrees", e.Name(), "config.worktree"))
			}
		}
	}
	es, err := os.ReadDir(filepath.Join(gd, "modules"))
	if err != nil {
		return
	}
	for _, e := range es {
		if e.IsDir() {
			gitDirFiles(filepath.Join(gd, "modules", e.Name()), add, depth+1)
		}
	}
}

// submodulePaths returns the relative `path = ...` values of a
// .gitmodules file (none outside the root: no "..", not absolute).
func submodulePaths(file string) []string {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok || strings.TrimSpace(k) != "path" {
			continue
		}
		p := filepath.Clean(filepath.FromSlash(strings.TrimSpace(v)))
		if filepath.IsAbs(p) || p == "." || p == ".." || strings.HasPrefix(p, ".."+string(filepath.Separator)) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// readGitdir returns the absolute, symlink-free git directory a .git file
// names, or "" when it names none.
func readGitdir(dotgit string) string {
	f, err := os.Open(dotgit)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	gd, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return ""
	}
	gd = strings.TrimSpace(gd)
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(filepath.Dir(dotgit), gd)
	}
	if real, err := filepath.EvalSymlinks(gd); err == nil {
		return real
	}
	return ""
}
