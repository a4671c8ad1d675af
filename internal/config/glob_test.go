package config

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestGlob(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a/x.toml", "a/b/y.toml", "c/z.json", "top.toml"} {
		write(t, filepath.Join(dir, f), "")
	}
	got, err := glob(filepath.Join(dir, "**", "*.toml"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "a", "b", "y.toml"), filepath.Join(dir, "a", "x.toml"), filepath.Join(dir, "top.toml")}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

func TestGlobBounded(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "f.toml"), "")
	c := &countingFS{FS: os.DirFS(dir), seen: maxGlobEntries}
	if _, err := c.ReadDir("."); !errors.Is(err, errGlobTooBig) {
		t.Fatalf("err = %v", err)
	}
	if want := strconv.Itoa(maxGlobEntries); !strings.Contains(errGlobTooBig.Error(), want) {
		t.Fatalf("the message %q does not name the bound %s", errGlobTooBig, want)
	}
}

// TestGlobBracesLiteral: JP's glob has no {a,b} alternation.
func TestGlobBracesLiteral(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "x{1,2}.toml"), "")
	write(t, filepath.Join(dir, "x1.toml"), "")
	got, err := glob(filepath.Join(dir, "x{1,2}*"))
	if err != nil || len(got) != 1 || filepath.Base(got[0]) != "x{1,2}.toml" {
		t.Fatalf("got %v, %v", got, err)
	}
}

// TestGlobOrderIsJPs: JP's glob (the Rust glob crate, util.rs
// load_optional_paths) walks depth-first with each directory's entries
// sorted by name. Sorting whole path strings would put "a-b/x.toml" before
// "a/x.toml" and "tools.toml" before "tools/x.toml", since '-' and '.'
// sort before '/'.
func TestGlobOrderIsJPs(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a/x.toml", "a-b/x.toml", "tools.toml", "tools/x.toml", "tools/a/y.toml", "z.toml"} {
		write(t, filepath.Join(dir, f), "")
	}
	got, err := glob(filepath.Join(dir, "**", "*.toml"))
	if err != nil {
		t.Fatal(err)
	}
	var rel []string
	for _, g := range got {
		r, _ := filepath.Rel(dir, g)
		rel = append(rel, filepath.ToSlash(r))
	}
	want := []string{"a/x.toml", "a-b/x.toml", "tools/a/y.toml", "tools/x.toml", "tools.toml", "z.toml"}
	if strings.Join(rel, " ") != strings.Join(want, " ") {
		t.Fatalf("got %v, want %v", rel, want)
	}
}
