package main

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// forbidden are packages jp-policy-exec must never link: each costs page
// faults on every tool call (package initialisation, a bigger binary),
// and none is needed by the fast path. A run that needs them is handed to
// the full jp-policy (docs/exec.md, "jp-policy-exec").
var forbidden = []string{
	"net", "net/netip", "net/http", "crypto/tls", "crypto/x509",
	"encoding/json", "regexp",
	"golang.org/x/net/idna", "golang.org/x/text/...",
	"github.com/alecthomas/kong", "github.com/pelletier/go-toml/v2",
	"github.com/jp-policy/jp-policy/policy",
	"github.com/jp-policy/jp-policy/internal/launcher",
	"github.com/jp-policy/jp-policy/internal/artifact",
	"github.com/jp-policy/jp-policy/internal/config",
	"github.com/jp-policy/jp-policy/internal/emit/...",
	"github.com/jp-policy/jp-policy/internal/netproxy",
}

// TestLeanDependencies pins jp-policy-exec's dependency set on every
// platform it is built for: none of forbidden, and the module packages
// it links are exactly the lean core's.
func TestLeanDependencies(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command")
	}
	wantModule := []string{"internal/caps", "internal/execcore", "internal/execplan", "internal/jpdirs", "internal/nsroot", "internal/platform", "internal/rulematch", "internal/seccomp", "internal/wire"}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		cmd := exec.Command("go", "list", "-deps", ".")
		cmd.Env = append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=0")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("GOOS=%s go list: %v", goos, err)
		}
		var module []string
		for dep := range strings.FieldsSeq(string(out)) {
			for _, f := range forbidden {
				tree, isTree := strings.CutSuffix(f, "/...")
				if dep == f || isTree && (dep == tree || strings.HasPrefix(dep, tree+"/")) {
					t.Errorf("GOOS=%s: jp-policy-exec links %s", goos, dep)
				}
			}
			if rel, ok := strings.CutPrefix(dep, "github.com/jp-policy/jp-policy/"); ok && rel != "cmd/jp-policy-exec" {
				module = append(module, rel)
			}
		}
		slices.Sort(module)
		if goos == "linux" && !slices.Equal(module, wantModule) {
			t.Errorf("GOOS=linux: jp-policy-exec links the module packages %v, want %v", module, wantModule)
		}
	}
}
