package lint

import (
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
)

// TestWalkTreeDirentsMatchesWalkDir: the getdents walk lists the same
// files in the same order as filepath.WalkDir, for the trees a workspace
// holds (nested and empty directories, .git, symlinks to directories,
// files and nowhere, a FIFO, names that sort differently as bytes and
// as text) and for roots that are not directories.
func TestWalkTreeDirentsMatchesWalkDir(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"a.txt", "B.txt", "é.txt", "a-b/x", "a/b/c/.env", "a/b/d.pem", "a.b/y", ".git/config", ".git/objects/ab/cd",
		"src/.git/HEAD", "deep/1/2/3/4/5/6/file", "z/k"} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"empty", "a/empty"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"to-dir": "a", "to-file": "a.txt", "dangling": "nowhere", "a/up": ".."} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	noAccess := filepath.Join(root, "locked")
	if err := os.MkdirAll(filepath.Join(noAccess, "inner"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(noAccess, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(noAccess, 0o755) })

	for _, dir := range []string{root, root + "/", filepath.Join(root, "a"), filepath.Join(root, "to-dir"), filepath.Join(root, "a.txt"),
		filepath.Join(root, "missing"), filepath.Join(root, "empty"), noAccess, ""} {
		want := walkTreePortable(dir)
		got := walkTree(dir)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("walkTree(%q):\n got %q (truncated %v)\nwant %q (truncated %v)", dir, got.files, got.truncated, want.files, want.truncated)
		}
	}
	if ix, ok := walkTreeDirents(root); !ok || len(ix.files) < 10 {
		t.Fatalf("walkTreeDirents(root) = %v, %v: the test must exercise the getdents walk", ix, ok)
	}
}
