package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestDiffExitCodes: 0 nothing widened, 1 something widened, 2 an error
// (testscript's `! exec` cannot tell 1 from 2).
func TestDiffExitCodes(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("JP_USER_DATA_DIR", filepath.Join(dir, "data"))
	t.Setenv("JP_GLOBAL_CONFIG_DIR", filepath.Join(dir, "global"))
	ws := filepath.Join(dir, "ws")
	os.MkdirAll(filepath.Join(ws, ".jp"), 0o755)
	cfg := filepath.Join(ws, ".jp", "config.toml")
	write := func(s string) {
		if err := os.WriteFile(cfg, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base := "[conversation.tools.t]\nsource = \"local\"\ncommand = \"t\"\n\n[[conversation.tools.t.access.fs]]\npath = \"src\"\nread = true\n"
	write(base)
	code := func(args ...string) int {
		var out, errb bytes.Buffer
		c := run(args, nil, &out, &errb)
		t.Logf("%v -> %d\n%s%s", args, c, out.String(), errb.String())
		return c
	}
	if c := code("diff", "--workspace", ws); c != 2 {
		t.Errorf("diff without a pin = %d, want 2", c)
	}
	if c := code("compile", "--workspace", ws, "--no-input"); c != 0 {
		t.Fatalf("compile = %d", c)
	}
	if c := code("diff", "--workspace", ws); c != 0 {
		t.Errorf("diff of the same config = %d, want 0", c)
	}
	write(base + "# a comment\n")
	if c := code("diff", "--workspace", ws); c != 0 {
		t.Errorf("diff after a comment = %d, want 0", c)
	}
	write(base + "\n[[conversation.tools.t.access.fs]]\npath = \".\"\nread = true\n")
	if c := code("diff", "--workspace", ws); c != 1 {
		t.Errorf("diff after a widening = %d, want 1", c)
	}
	write("not toml [")
	if c := code("diff", "--workspace", ws); c != 2 {
		t.Errorf("diff of broken config = %d, want 2", c)
	}
	if c := code("diff", "--old", filepath.Join(dir, "missing.json"), "--new", filepath.Join(dir, "missing.json")); c != 2 {
		t.Errorf("diff of missing files = %d, want 2", c)
	}
}
