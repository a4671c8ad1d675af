package launcher

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jp-policy/jp-policy/internal/jpdirs"
	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/plan/landlock"
)

// gitProtected lists, at exec time, the git files a tool must not write
// that the compiled plan cannot know: git reads them, and runs hooks from
// them, unsandboxed on the user's next git command.
//
//   - A `.git` *file* at the top of a writable bind (a linked worktree, a
//     submodule checkout, `git init --separate-git-dir`) names its git
//     directory (`gitdir: PATH`): the file itself is protected (rewritten,
//     it would send git to hooks the tool wrote), and so is that whole
//     directory and, through its `commondir` file, the whole shared
//     repository directory: whole, as `.git` is (ProtectedNames), because
//     git takes config and hooks from wherever a `commondir` it finds
//     there points, and a tool that could write beside a read-only config
//     could create or rewrite one (attack_ns_git.txtar).
//   - A submodule checkout's `.git` file (its path from `.gitmodules`);
//     the git directories of submodules and linked worktrees of a `.git`
//     directory are inside it, protected with it.
//   - Every `.git`, directory or file, nested at any depth (a plain
//     clone inside the workspace): nestedGitProtected.
//
// Only paths that exist are listed (a protected path is a bind of itself);
// WithProtected keeps those under a writable bind and not under a
// protected one. A `.git` file is read up to its first line.
//
// cut lists the writable binds whose walk stopped at its bound: a nested
// repository past it is not found, so the caller refuses unless
// --best-effort (gitScanCut).
//
// entries are the nested repositories as jpdirs.NestedGitEntries names
// them, for quarantineNewNestedGit to compare with after the run. The
// walks go through scans (gitScans), which keep what they read.
func gitProtected(ns *landlock.NSPlan, scans *gitScans) (out, entries, cut []string) {
	for _, b := range ns.Binds {
		if !b.RW {
			continue
		}
		dotgit := filepath.Join(b.Path, ".git")
		if fi, err := os.Lstat(dotgit); err == nil && fi.Mode().IsRegular() {
			out = append(out, dotgit)
			out = append(out, gitDirs(readGitdir(dotgit))...)
		}
		// Submodule checkouts below the root have a .git file of their
		// own, named by .gitmodules.
		for _, sub := range submodulePaths(filepath.Join(b.Path, ".gitmodules")) {
			if fi, err := os.Lstat(filepath.Join(b.Path, sub, ".git")); err == nil && fi.Mode().IsRegular() {
				out = append(out, filepath.Join(b.Path, sub, ".git"))
			}
		}
	}
	for _, r := range scans.roots {
		found, e, complete := nestedGitProtected(r, scans.scan[r])
		out = append(out, found...)
		entries = append(entries, e...)
		if !complete {
			cut = append(cut, r)
		}
	}
	return out, entries, cut
}

// gitScans are the walks for nested repositories of one namespaced run:
// one per writable bind that no other writable bind holds (a walk of the
// outer one finds everything in the inner ones), each remembering what it
// read (jpdirs.GitScan): the walk after the run reads again only the
// directories whose identity changed, and what the walk after the run
// read is saved under jp-policy's data directory for the next run's first
// walk.
type gitScans struct {
	roots   []string
	scan    map[string]*jpdirs.GitScan
	dataDir string // "" when it cannot be located: nothing is loaded or saved
}

func newGitScans(ns *landlock.NSPlan) *gitScans {
	g := &gitScans{scan: map[string]*jpdirs.GitScan{}}
	if d, err := jpdirs.UserDataDir(os.Getenv); err == nil && filepath.IsAbs(d) {
		g.dataDir = d
	}
	var rw []string
	for _, b := range ns.Binds {
		if b.RW {
			rw = append(rw, b.Path)
		}
	}
	for _, r := range rw {
		inner := false
		for _, o := range rw {
			rel, ok := strings.CutPrefix(r, strings.TrimSuffix(o, "/")+"/")
			// The walk of o does not enter a `.git`: a writable bind
			// inside one (a rule naming .git) is walked on its own.
			if o != r && ok && !slices.Contains(strings.Split(rel, "/"), ".git") {
				inner = true
			}
		}
		if inner || g.scan[r] != nil {
			continue
		}
		g.roots = append(g.roots, r)
		if g.dataDir != "" {
			g.scan[r] = jpdirs.LoadGitScan(jpdirs.GitScanFile(g.dataDir, r), r)
		} else {
			g.scan[r] = &jpdirs.GitScan{}
		}
	}
	return g
}

// save keeps each walk's listings for the next run; a failure only costs
// that run a full walk.
func (g *gitScans) save() {
	if g.dataDir == "" {
		return
	}
	for _, r := range g.roots {
		_ = g.scan[r].Save(jpdirs.GitScanFile(g.dataDir, r), r)
	}
}

// gitScanCut refuses a run whose walk for nested repositories stopped at
// its bound, unless --best-effort (then it warns): a tool that filled a
// writable grant with entries (or a grant over a huge tree) would
// otherwise leave every repository past them writable, and a warning on
// the tool's stderr is read by the tool, not the user.
func (p *Plan) gitScanCut(cut []string) error {
	if len(cut) == 0 {
		return nil
	}
	d := Degradation{
		Clause: plan.Clause{ID: "ns.protected", What: "every nested .git in a writable grant read-only"},
		Reason: fmt.Sprintf("%s hold(s) more than %d entries, so nested git repositories past them cannot be found and kept read-only; remove what the tool left there, or grant a narrower directory",
			strings.Join(cut, ", "), jpdirs.GitScanLimit),
	}
	if !p.bestEffort {
		return &UnenforceableError{ABI: p.ABI, Degraded: []Degradation{d}}
	}
	fmt.Fprintf(os.Stderr, "jp-policy: warning: --best-effort: %s\n", d)
	return nil
}

// nestedGitProtected is every `.git` nested in the writable bind at dir,
// at any depth (jpdirs.NestedGitDirs), inside the workspace or in an
// approved mount outside it alike, and for a `.git` file the git
// directories it names: a plain clone or a submodule added from an
// existing clone has a `.git` directory no list names, and git runs its
// config (core.fsmonitor) and hooks on the user's next command there. A
// mount is walked whole too: a depth bound there left a GOPATH-style
// checkout (~/go/src/github.com/ORG/REPO, under an approved ~/go mount)
// writable (attack_ns_git_scan.txtar). complete is false when the walk
// stopped at its bound.
func nestedGitProtected(dir string, scan *jpdirs.GitScan) (out, entries []string, complete bool) {
	entries, complete = scan.Entries(dir, jpdirs.GitScanLimit)
	// And JP's own below the top (nested .jp directories and .jp.*
	// layers): JP reads them when run there.
	out = append(out, scan.JPConfig()...)
	for _, e := range entries {
		g := e
		if filepath.Base(e) == "HEAD" {
			// A bare repository: all of it, and the directory its
			// commondir names (git takes config and hooks from there).
			out = append(out, gitDirs(filepath.Dir(e))...)
			continue
		} else if fi, err := os.Lstat(e); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			// git follows a `.git` symlink: keep what it names.
			real, err := filepath.EvalSymlinks(e)
			if err != nil {
				continue
			}
			g = real
		}
		out = append(out, g)
		if fi, err := os.Lstat(g); err == nil && fi.Mode().IsRegular() {
			out = append(out, gitDirs(readGitdir(g))...)
		}
	}
	return out, entries, complete
}

// gitDirs is git directory gd and the shared repository directory its
// `commondir` names, both symlink-free; none when gd is "".
func gitDirs(gd string) []string {
	if gd == "" {
		return nil
	}
	out := []string{gd}
	if b, err := os.ReadFile(filepath.Join(gd, "commondir")); err == nil {
		cd := strings.TrimSpace(string(b))
		if !filepath.IsAbs(cd) {
			cd = filepath.Join(gd, cd)
		}
		if real, err := filepath.EvalSymlinks(cd); err == nil {
			out = append(out, real)
		}
	}
	return out
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
