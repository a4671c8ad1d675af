package main

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// forbidden are packages jp-policy-exec must never link: each adds
// start-up work to every tool call (package initialisation, a bigger
// binary), and none is needed by the fast path. A run that needs them is handed to
// the full jp-policy (docs/exec.md, "jp-policy-exec").
var forbidden = []string{
	"net", "net/netip", "net/http", "crypto/tls", "crypto/sha256", "crypto/x509",
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
	wantModule := []string{"internal/atomicfile", "internal/caps", "internal/earlyheap", "internal/earlystack", "internal/execcore", "internal/execplan", "internal/jpdirs", "internal/nsroot", "internal/platform", "internal/rulematch", "internal/scratchhome", "internal/seccomp", "internal/wire"}
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

// TestEarlyStackFirst: internal/earlystack's init, which gives the main
// goroutine its final stack in one step, runs before every initialiser
// but the runtime's own; later, the standard library's initialisers
// would already have grown the stack through the small pools it exists
// to avoid (GODEBUG=inittrace=1 lists the order).
func TestEarlyStackFirst(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command")
	}
	bin := t.TempDir() + "/jp-policy-exec"
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// No arguments: the run is handed to a jp-policy that is not there;
	// only the trace, printed before main, matters.
	run := exec.Command(bin)
	run.Env = append(os.Environ(), "GODEBUG=inittrace=1", "PATH=/nonexistent")
	out, _ := run.CombinedOutput()
	var order []string
	for line := range strings.Lines(string(out)) {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			order = append(order, f[1])
		}
	}
	i := slices.Index(order, "github.com/jp-policy/jp-policy/internal/earlystack")
	if i < 0 {
		t.Fatalf("earlystack's init is not in the trace:\n%s", out)
	}
	for _, p := range order[:i] {
		if p != "runtime" && !strings.HasPrefix(p, "internal/") {
			t.Errorf("%s is initialised before earlystack: %v", p, order)
		}
	}
}
