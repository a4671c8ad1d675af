//go:build unix

package launcher

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// ReadNoFollow returns the whole file whatever its size, and refuses a
// symlink.
func TestReadNoFollow(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 511, 512, 4096, 1<<20 + 3} {
		p := filepath.Join(dir, "f")
		want := bytes.Repeat([]byte{'x'}, n)
		if err := os.WriteFile(p, want, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := ReadNoFollow(p)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("size %d: got %d bytes, %v", n, len(got), err)
		}
	}
	link := filepath.Join(dir, "l")
	if err := os.Symlink(filepath.Join(dir, "f"), link); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadNoFollow(link); !errors.Is(err, ErrIsSymlink) {
		t.Fatalf("symlink: %v, want ErrIsSymlink", err)
	}
}
