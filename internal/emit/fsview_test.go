package emit

import (
	"os"
	"path/filepath"
	"testing"
)

// CachedFS answers as the disk did the first time it was asked: one
// compile sees one snapshot of the tree, whatever changes during it.
func TestCachedFSIsASnapshot(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c := NewCachedFS()
	if _, err := c.Lstat(f); err != nil {
		t.Fatal(err)
	}
	entries, err := c.ReadDir(dir)
	if err != nil || len(entries) != 1 || entries[0].Name() != "f" {
		t.Fatalf("ReadDir = %v, %v", entries, err)
	}
	if _, err := c.Lstat(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Fatalf("a missing path: %v", err)
	}
	if err := os.Remove(f); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "missing"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Lstat(f); err != nil {
		t.Errorf("a removed path is still there for this compile, got %v", err)
	}
	if _, err := c.Lstat(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("a path created later is still missing for this compile, got %v", err)
	}
	if entries, _ := c.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the listing changed: %v", entries)
	}
	if _, err := OS.Lstat(f); !os.IsNotExist(err) {
		t.Errorf("OS reads the disk: %v", err)
	}
}
