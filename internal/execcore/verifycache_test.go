//go:build linux || darwin

package execcore

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jp-policy/jp-policy/internal/execplan"
)

// TestVerifyCache: an input hashed once is later trusted by its stat
// identity, and any change of its bytes is still caught, even one that
// keeps the size and puts the old mtime back (ctime moves regardless).
func TestVerifyCache(t *testing.T) {
	old := settleTime
	t.Cleanup(func() { settleTime = old })
	settleTime = 0

	dir := t.TempDir()
	layer := filepath.Join(dir, "config.toml")
	cachePath := filepath.Join(dir, "pins", "x.verified")
	os.MkdirAll(filepath.Dir(cachePath), 0o700)
	write := func(s string, mtime time.Time) {
		t.Helper()
		if err := os.WriteFile(layer, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(layer, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	mtime := time.Now().Add(-time.Hour).Truncate(time.Second)
	write("read = true\n", mtime)
	inputs := []execplan.Input{{Kind: "layer", Path: layer, SHA256: execplan.SHA256Hex([]byte("read = true\n"))}}
	verify := func() error {
		c := loadVerifyCache(cachePath)
		err := verifyInputs(inputs, c)
		c.save(inputs)
		return err
	}
	if err := verify(); err != nil {
		t.Fatal(err)
	}
	c := loadVerifyCache(cachePath)
	if len(c.entries) != 1 || !c.fresh(layer, inputs[0].SHA256) {
		t.Fatalf("first verify recorded %+v", c.entries)
	}
	// The same size, the same mtime, other bytes: stale. The edit must
	// land in a later clock tick than the recorded ctime (settleTime,
	// zero here, is what ensures that outside tests), so it is written
	// again until ctime has moved.
	recorded := c.entries[layer].id.Ctime
	for deadline := time.Now().Add(30 * time.Second); ; {
		write("read = fals\n", mtime)
		fi, err := os.Stat(layer)
		if err != nil {
			t.Fatal(err)
		}
		if id, _ := identity(fi); id.Ctime != recorded {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the file's ctime did not move in 30 s of rewrites")
		}
	}
	if err := verify(); !errors.Is(err, execplan.ErrStale) {
		t.Fatalf("edited layer with its mtime put back: %v, want stale", err)
	}
	if loadVerifyCache(cachePath).fresh(layer, inputs[0].SHA256) {
		t.Fatal("the cache still vouches for the edited file")
	}
	// Back to the compiled bytes: current again, and re-recorded.
	write("read = true\n", mtime)
	if err := verify(); err != nil {
		t.Fatal(err)
	}
	// An entry is only used for the hash it was recorded with.
	if loadVerifyCache(cachePath).fresh(layer, execplan.SHA256Hex([]byte("other"))) {
		t.Fatal("entry used for another hash")
	}
	// A damaged cache is an empty one.
	os.WriteFile(cachePath, []byte("jp-policy verified 1\nnot a line\n"), 0o600)
	if c := loadVerifyCache(cachePath); len(c.entries) != 0 {
		t.Fatalf("damaged cache read as %+v", c.entries)
	}
	// A file changed within settleTime is hashed but not recorded.
	settleTime = time.Hour
	os.Remove(cachePath)
	if err := verify(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cachePath); !os.IsNotExist(err) {
		t.Fatalf("an unsettled file was recorded (%v)", err)
	}
}

// FuzzVerifyCacheParse: the cache parser never panics, and what it
// accepts survives a write and a read unchanged.
func FuzzVerifyCacheParse(f *testing.F) {
	f.Add([]byte(verifyCacheMagic + "1 2 3 4 5 " + execplan.SHA256Hex(nil) + " \"/a b\"\n"))
	f.Add([]byte("junk"))
	f.Fuzz(func(t *testing.T, b []byte) {
		entries, ok := parseVerifyCache(b)
		if !ok {
			return
		}
		c := &verifyCache{entries: entries}
		var keep []execplan.Input
		for p := range entries {
			keep = append(keep, execplan.Input{Path: p})
		}
		back, ok := parseVerifyCache(c.marshal(keep))
		if !ok || len(back) != len(entries) {
			t.Fatalf("round trip: %v %d != %d", ok, len(back), len(entries))
		}
		for p, e := range entries {
			if back[p] != e {
				t.Fatalf("%q: %+v != %+v", p, back[p], e)
			}
		}
	})
}
