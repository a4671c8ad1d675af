package compiler

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestProtectedApprovalsFile: an approvals store given by path is
// protected where it resolves, and at both ends when it is a symlink to a
// file that does not exist yet (it used to be dropped: its resolution
// failed).
func TestProtectedApprovalsFile(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	getenv := func(string) string { return "" }
	real := filepath.Join(dir, "approvals.json")
	if err := os.WriteFile(real, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	missing := filepath.Join(dir, "store", "approvals.json")
	if err := os.Symlink(missing, link); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	for _, tt := range []struct {
		file string
		want []string
	}{
		{real, []string{real}},
		{link, []string{link, missing}},
	} {
		got, _ := protectedPaths("", getenv, tt.file, nil)
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("protectedPaths with approvals %s = %v, missing %s", tt.file, got, w)
			}
		}
	}
}
