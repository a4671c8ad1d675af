//go:build !windows

package main

import (
	"os"
	"path/filepath"
	"testing"
)

// selfBinary returns a path that runs this test binary as jp-policy:
// testscript.Main (in TestMain) dispatches on the name the binary was
// started under, so a symlink named jp-policy is the real command.
func selfBinary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "jp-policy")
	if err := os.Symlink(exe, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}
