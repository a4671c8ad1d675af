//go:build linux

package compiler

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// An output directory that is a mount point (a tmpfs, a CI or container
// volume) cannot be renamed: compile replaces its entries one by one from
// a stage inside it, leaves no stage behind, and writes what an output
// directory on the workspace's file system gets.
func TestCompileOutMountPoint(t *testing.T) {
	root := benchWorkspace(t, 5)
	mnt := t.TempDir()
	if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, "size=64m"); err != nil {
		if os.Getenv("JP_POLICY_REQUIRE_ENFORCEMENT") == "1" {
			t.Fatalf("cannot mount a tmpfs: %v", err)
		}
		t.Skipf("cannot mount a tmpfs (needs root): %v", err)
	}
	t.Cleanup(func() { unix.Unmount(mnt, unix.MNT_DETACH) })
	opts := benchOptions(root)
	opts.OutDir = mnt
	for round := range 2 {
		if round == 1 {
			// A second compile replaces the first artifact.
			cfg := filepath.Join(root, ".jp", "config.toml")
			b, _ := os.ReadFile(cfg)
			os.WriteFile(cfg, append(b, "# edited\n"...), 0o644)
		}
		_, dir, err := Compile(opts)
		if err != nil {
			t.Fatalf("compile %d: %v", round, err)
		}
		if dir != mnt {
			t.Fatalf("wrote %s, want %s", dir, mnt)
		}
		entries, _ := os.ReadDir(mnt)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), stagePrefix) {
				t.Errorf("compile %d left its stage %s", round, e.Name())
			}
		}
		siblings, _ := filepath.Glob(filepath.Join(filepath.Dir(mnt), "."+filepath.Base(mnt)+"*"))
		if len(siblings) != 0 {
			t.Errorf("compile %d left %v beside the mount", round, siblings)
		}
		built, err := Rebuild(opts)
		if err != nil {
			t.Fatal(err)
		}
		got := readTree(t, mnt)
		if len(got) != len(built.Files) {
			t.Errorf("compile %d wrote %d files, Build built %d", round, len(got), len(built.Files))
		}
		for rel, b := range built.Files {
			if !bytes.Equal(got[rel], b) {
				t.Errorf("compile %d: %s differs from what Build built", round, rel)
			}
		}
	}
}
