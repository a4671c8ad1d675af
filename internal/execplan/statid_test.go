//go:build linux || darwin

package execplan

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// settle waits until the clock is past path's change time by more than
// the margin a recorded identity needs, so a change after it lands in a
// later tick (what compile checks with its own clock).
func settle(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	_, ctime, ok := fileID(fi)
	if !ok {
		t.Skip("no file identity here")
	}
	for !settled(ctime, time.Now()) {
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHashFileID: a file changed just now gets no identity (a change in
// the same clock tick could keep it); a settled one does, StatID gives it
// back while the file is unchanged, and an edit that keeps the size and
// restores the modification time still changes it (the change time).
func TestHashFileID(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte("a = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, id, err := HashFileID(p, func() time.Time { return time.Unix(0, 0) })
	if err != nil || sum != SHA256Hex([]byte("a = 1\n")) || id != "" {
		t.Fatalf("unsettled: %q %q %v, want the hash and no identity", sum, id, err)
	}
	settle(t, p)
	_, id, err = HashFileID(p, time.Now)
	if err != nil || id == "" {
		t.Fatalf("settled: no identity (%v)", err)
	}
	if now := StatID(p); now != id {
		t.Fatalf("StatID %q, recorded %q: the file did not change", now, id)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("a = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if now := StatID(p); now == id || now == "" {
		t.Fatalf("edited with size and mtime restored: identity %q, recorded %q", now, id)
	}
	if _, id, _ := HashFileID(filepath.Join(t.TempDir(), "absent"), time.Now); id != "" {
		t.Errorf("absent file: identity %q", id)
	}
}
