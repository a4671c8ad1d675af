//go:build linux || darwin

package launcher

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jp-policy/jp-policy/internal/execplan"
)

// TestVerifyCurrentUsesRecordedIdentity: a layer whose identity is the
// one compile recorded is not hashed again (a recorded hash that does not
// match shows it), and an edit that keeps the size and restores the
// modification time is still stale: the change time moved, so the file is
// hashed and the hash differs.
func TestVerifyCurrentUsesRecordedIdentity(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "config.toml")
	if err := os.WriteFile(p, []byte("a = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Compile records an identity only once the file has settled.
	var sum, id string
	for id == "" {
		var err error
		if sum, id, err = execplan.HashFileID(p, time.Now); err != nil {
			t.Fatal(err)
		}
		if id == "" {
			time.Sleep(10 * time.Millisecond)
		}
	}
	in := execplan.Input{Kind: "layer", Path: p, SHA256: sum, ID: id}
	if err := VerifyCurrent(root, []execplan.Input{in}); err != nil {
		t.Fatalf("unchanged: %v", err)
	}
	other := in
	other.SHA256 = execplan.SHA256Hex([]byte("not these bytes"))
	if err := VerifyCurrent(root, []execplan.Input{other}); err != nil {
		t.Fatalf("the identity matches, so the file must not be hashed: %v", err)
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
	err = VerifyCurrent(root, []execplan.Input{in})
	if _, ok := errors.AsType[*execplan.StaleError](err); !ok {
		t.Fatalf("edited (size and mtime restored): %v, want a StaleError", err)
	}
}
