//go:build linux

package compiler

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/jp-policy/jp-policy/internal/artifact"
)

func inodeOf(t *testing.T, p string) (ino uint64, nlink uint64) {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return st.Ino, uint64(st.Nlink)
}

// A recompile links the previous artifact's files that hold the same
// bytes instead of creating them again, and writes a fresh file for any
// previous file that differs, is writable by others, or has another name,
// so what ends up in the artifact is always exactly what Build built.
func TestRecompileReusesOnlyIdenticalFiles(t *testing.T) {
	// Both ways of linking the open file: linkat(AT_EMPTY_PATH), and its
	// /proc/self/fd entry where the kernel refuses the first.
	defer emptyPathRefused.Store(emptyPathRefused.Load())
	for _, proc := range []bool{false, true} {
		t.Run(fmt.Sprintf("procfd=%v", proc), func(t *testing.T) {
			emptyPathRefused.Store(proc)
			testRecompileReuses(t)
		})
	}
}

func testRecompileReuses(t *testing.T) {
	root := benchWorkspace(t, 6)
	opts := benchOptions(root)
	// Twice: the first compile creates the pin's directory inside this
	// workspace, which changes the listing the manifests depend on.
	for range 2 {
		if _, _, err := Compile(opts); err != nil {
			t.Fatal(err)
		}
	}
	out := defaultOutDir(root)
	rel := func(dir, name, ext string) string { return filepath.Join(out, dir, name+ext) }
	same := rel(artifact.DirLandlock, "tool_00000", ".json")
	tampered := rel(artifact.DirSBPL, "tool_00001", ".sb")
	loose := rel(artifact.DirWinJob, "tool_00002", ".json")
	linked := rel(artifact.DirLandlock, "tool_00003", ".json")
	sameIno, _ := inodeOf(t, same)
	b, err := os.ReadFile(tampered)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-2] ^= 1 // same size, different bytes, in place
	if err := os.WriteFile(tampered, b, 0o644); err != nil {
		t.Fatal(err)
	}
	tamperedIno, _ := inodeOf(t, tampered)
	if err := os.Chmod(loose, 0o666); err != nil {
		t.Fatal(err)
	}
	looseIno, _ := inodeOf(t, loose)
	extra := filepath.Join(t.TempDir(), "extra-name") // outside the workspace, whose listing the manifests depend on
	if err := os.Link(linked, extra); err != nil {
		t.Fatal(err)
	}
	linkedIno, _ := inodeOf(t, linked)

	if _, _, err := Compile(opts); err != nil {
		t.Fatal(err)
	}
	if ino, n := inodeOf(t, same); ino != sameIno || n != 1 {
		t.Errorf("unchanged file: inode %d nlink %d, want the previous inode %d with one link", ino, n, sameIno)
	}
	for _, c := range []struct {
		what, path string
		prev       uint64
	}{{"tampered", tampered, tamperedIno}, {"world-writable", loose, looseIno}, {"second name", linked, linkedIno}} {
		if ino, _ := inodeOf(t, c.path); ino == c.prev {
			t.Errorf("%s file was reused", c.what)
		}
	}
	if fi, _ := os.Stat(loose); fi.Mode().Perm()&0o022 != 0 {
		t.Errorf("rewritten file has mode %v", fi.Mode())
	}
	res, err := Build(opts)
	if err != nil {
		t.Fatal(err)
	}
	got := readTree(t, out)
	for name, want := range res.Files {
		if name == artifact.FileName {
			continue // Build's digest of inputs is the same; compared by TestCompileWritesWhatBuildBuilds
		}
		if !bytes.Equal(got[name], want) {
			t.Errorf("%s differs from what Build builds", name)
		}
	}
}
