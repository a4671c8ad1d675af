package jpdirs

import (
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestGitScanReuse: a later walk takes an unchanged directory's listing
// from the earlier walk (a `.git` planted in the remembered listing, and
// nowhere on disk, is reported: the positive control that the listing,
// not the disk, was used), and reads again a directory that changed
// since, whatever its mtime says: a `.git` made and the mtime set back
// (utimensat moves the ctime) is found, and the planted one is gone. A
// listing whose ctime is not older than its walk by the margin is never
// reused.
func TestGitScanReuse(t *testing.T) {
	root := settledTree(t, "a/b", "c")
	g := &GitScan{}
	if got, complete := g.Entries(root, GitScanLimit); len(got) != 0 || !complete {
		t.Fatalf("first walk = %v %v", got, complete)
	}
	g.Reuse()
	ab := filepath.Join(root, "a/b")
	g.prev[ab].Ents = append([]gitEnt{{Name: ".git", Type: os.ModeDir}}, g.prev[ab].Ents...)
	if got, _ := g.Entries(root, GitScanLimit); !slices.Equal(got, []string{filepath.Join(ab, ".git")}) {
		t.Fatalf("the unchanged directory's listing was not reused: %v", got)
	}

	// Changed, and its times set back.
	fi, err := os.Stat(ab)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(ab, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(ab, "x", ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(ab, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(ab); !after.ModTime().Equal(fi.ModTime()) {
		t.Fatal("the mtime was not set back")
	}
	g.Reuse()
	if got, _ := g.Entries(root, GitScanLimit); !slices.Equal(got, []string{filepath.Join(ab, "x/.git")}) {
		t.Errorf("after a change with the mtime set back: %v, want only a/b/x/.git", got)
	}

	// Racy: a margin larger than the listings' age reads everything again.
	g.Reuse()
	g.prev[filepath.Join(root, "c")].Ents = []gitEnt{{Name: ".git", Type: os.ModeDir}}
	SetGitScanMarginForTest(time.Hour)
	if got, _ := g.Entries(root, GitScanLimit); !slices.Equal(got, []string{filepath.Join(ab, "x/.git")}) {
		t.Errorf("a racy listing was reused: %v", got)
	}
}

// TestGitScanSaved: a saved scan loads for its root only, and not once a
// byte of it changed.
func TestGitScanSaved(t *testing.T) {
	root := settledTree(t, "a/.git", ".hidden/b")
	g := &GitScan{}
	g.Entries(root, GitScanLimit)
	file := GitScanFile(t.TempDir(), root)
	if err := g.Save(file, root); err != nil {
		t.Fatal(err)
	}
	l := LoadGitScan(file, root)
	if len(l.prev) != 4 {
		t.Fatalf("loaded %d listings, want 4", len(l.prev))
	}
	if got, _ := l.Entries(root, GitScanLimit); l.read != 0 || !slices.Equal(got, []string{filepath.Join(root, "a/.git")}) {
		t.Errorf("a walk from the saved scan read %d directories and found %v", l.read, got)
	}
	if l := LoadGitScan(file, root+"x"); l.prev != nil {
		t.Error("a scan loaded for another root")
	}
	// A scan an older walk saved (its listings may lack entries the walk
	// now looks at: a symlinked objects/, a commondir) is not used.
	old, _ := json.Marshal(savedScan{V: gitScanVersion - 1, Root: root, Since: g.start.UnixNano(), Dirs: map[string]*gitDir{}})
	sum := sha256.Sum256(old)
	if err := os.WriteFile(file+".old", append(old, sum[:]...), 0o600); err != nil {
		t.Fatal(err)
	}
	if l := LoadGitScan(file+".old", root); l.prev != nil {
		t.Error("a scan of another version loaded")
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 1
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if l := LoadGitScan(file, root); l.prev != nil {
		t.Error("a changed scan loaded")
	}
}

// waitTick returns once the filesystem clock has moved past the ctime of
// dir: a file made now gets a later ctime.
func waitTick(t *testing.T, dir string) {
	t.Helper()
	ctime := func(p string) int64 {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		k, _ := keyOf(fi)
		return k.Ctime
	}
	probe := filepath.Join(t.TempDir(), "probe")
	for c := ctime(dir); ; {
		if err := os.WriteFile(probe, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if ctime(probe) > c {
			return
		}
		os.Remove(probe)
	}
}

// TestGitScanNoFollow: a symlink swapped in for a directory after its
// parent was listed (a race with another process) is not followed: the
// walk would report, and the quarantine after a run move aside, a
// repository outside the tree. Positive control: the same tree with the
// directory in place reports the repository.
func TestGitScanNoFollow(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(outside, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	defer SetGitScanMarginForTest(racyMargin)
	SetGitScanMarginForTest(-time.Hour) // every listing is reused if its identity matches
	g := &GitScan{}
	g.Entries(root, GitScanLimit)
	if err := os.Remove(filepath.Join(root, "d")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "d")); err != nil {
		t.Fatal(err)
	}
	g.Reuse()
	// The race: root's listing (d a directory) taken as current.
	fi, err := os.Lstat(root)
	if err != nil {
		t.Fatal(err)
	}
	g.prev[root].Key, _ = keyOf(fi)
	if got, _ := g.Entries(root, GitScanLimit); len(got) != 0 {
		t.Errorf("the walk followed a symlink out of the tree: %v", got)
	}
	if err := os.Remove(filepath.Join(root, "d")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(outside, filepath.Join(root, "d")); err != nil {
		t.Fatal(err)
	}
	if got, _ := (&GitScan{}).Entries(root, GitScanLimit); !slices.Equal(got, []string{filepath.Join(root, "d/.git")}) {
		t.Errorf("control: %v", got)
	}
}

// TestNestedGitBareShapes: every shape git's is_git_directory takes for a
// repository is found: objects or refs a symlink, HEAD a symlink into
// refs/, a commondir file in place of objects and refs. Control: a HEAD
// beside only objects/, or a HEAD directory, is no repository.
func TestNestedGitBareShapes(t *testing.T) {
	root := t.TempDir()
	mk := func(p string) {
		if err := os.MkdirAll(filepath.Join(root, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	file := func(p string) {
		if err := os.WriteFile(filepath.Join(root, p), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(to, p string) {
		if err := os.Symlink(to, filepath.Join(root, p)); err != nil {
			t.Fatal(err)
		}
	}
	mk("o/refs")
	mk("o/store")
	file("o/HEAD")
	link("store", "o/objects")
	mk("r/objects")
	mk("r/store")
	file("r/HEAD")
	link("store", "r/refs")
	mk("h/objects")
	mk("h/refs")
	link("refs/heads/main", "h/HEAD")
	mk("c/w")
	file("c/w/HEAD")
	file("c/w/commondir")
	mk("no/objects")
	file("no/HEAD")
	mk("dir/HEAD")
	mk("dir/objects")
	mk("dir/refs")
	got, complete := NestedGitEntries(root, GitScanLimit)
	want := []string{"c/w/HEAD", "h/HEAD", "o/HEAD", "r/HEAD"}
	for i := range want {
		want[i] = filepath.Join(root, want[i])
	}
	slices.Sort(got)
	if !complete || !slices.Equal(got, want) {
		t.Errorf("found %v, want %v", got, want)
	}
}

// TestGitScanUntrustedFS: on a filesystem whose directory ctime the
// kernel does not keep (FUSE, network), a remembered listing is never
// used, whatever the key says: a `.git` planted in the remembered listing
// is not reported. Control: the same on a local filesystem uses it.
func TestGitScanUntrustedFS(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if !ctimeKept(root) {
		t.Skip("the temporary directory is on a filesystem the walk does not trust: no control")
	}
	defer SetGitScanMarginForTest(racyMargin)
	SetGitScanMarginForTest(-time.Hour)
	for _, untrusted := range []bool{false, true} {
		forceCtimeUntrusted = untrusted
		g := &GitScan{}
		g.Entries(root, GitScanLimit)
		g.Reuse()
		a := filepath.Join(root, "a")
		g.prev[a].Ents = []gitEnt{{Name: ".git", Type: os.ModeDir}}
		got, _ := g.Entries(root, GitScanLimit)
		if reused := len(got) == 1; reused == untrusted {
			t.Errorf("untrusted=%v: found %v", untrusted, got)
		}
	}
	forceCtimeUntrusted = false
}

// settledTree makes the directories dirs in a new root and waits until
// their ctimes are older than the clock's tick, with the reuse margin
// set to zero for the test: with no margin, what the tree holds must be
// older than the tick (root's ctime is the latest of the tree's), since a
// change in the same tick would keep the ctime.
func settledTree(t *testing.T, dirs ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	SetGitScanMarginForTest(0)
	t.Cleanup(func() { SetGitScanMarginForTest(racyMargin) })
	waitTick(t, root)
	return root
}
