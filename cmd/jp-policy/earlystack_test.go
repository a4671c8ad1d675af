//go:build !windows

package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestEarlyStackInitsFirst: internal/earlystack must initialise before
// the packages whose inits grew the main goroutine's stack (kong compiles
// a regexp at init), or its jump to a large stack comes after the copies
// it exists to avoid (internal/earlystack's doc).
func TestEarlyStackInitsFirst(t *testing.T) {
	cmd := exec.Command(selfBinary(t), "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("jp-policy --version: %v\n%s", err, out)
	}
	order := map[string]int{}
	n := 0
	for line := range strings.Lines(string(out)) {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			order[f[1]] = n
			n++
		}
	}
	first, ok := order["github.com/jp-policy/jp-policy/internal/earlystack"]
	if !ok {
		t.Fatalf("no init of internal/earlystack in GODEBUG=inittrace output:\n%s", out)
	}
	for _, later := range []string{"github.com/alecthomas/kong", "regexp/syntax", "unicode", "github.com/jp-policy/jp-policy/policy"} {
		if at, ok := order[later]; ok && at < first {
			t.Errorf("%s initialises before internal/earlystack", later)
		}
	}
}
