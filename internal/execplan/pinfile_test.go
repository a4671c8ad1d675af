package execplan

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestPinFileReadAtMatchesOSFile: the pin reader answers every ReadAt as
// *os.File does (bytes, count, io.EOF at the end), and a missing pin is
// fs.ErrNotExist (PinTool's NoPinError).
func TestPinFileReadAtMatchesOSFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pin")
	data := []byte("jp-policy pin 6\nroot \"/ws\"\n0123456789")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, size, err := openPinFile(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if size != int64(len(data)) {
		t.Fatalf("size %d, want %d", size, len(data))
	}
	ref, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	for _, tc := range []struct{ off, n int }{{0, 0}, {0, 5}, {0, len(data)}, {3, len(data)}, {len(data) - 1, 4}, {len(data), 1}, {len(data) + 10, 3}} {
		a, b := make([]byte, tc.n), make([]byte, tc.n)
		na, ea := f.ReadAt(a, int64(tc.off))
		nb, eb := ref.ReadAt(b, int64(tc.off))
		if na != nb || !errors.Is(ea, eb) || string(a[:na]) != string(b[:nb]) {
			t.Errorf("ReadAt(%d bytes at %d) = %d %v %q, *os.File: %d %v %q", tc.n, tc.off, na, ea, a[:na], nb, eb, b[:nb])
		}
	}
	if _, _, err := openPinFile(filepath.Join(t.TempDir(), "gone")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing pin: %v, want fs.ErrNotExist", err)
	}
}
