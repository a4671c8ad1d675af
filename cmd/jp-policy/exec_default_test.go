package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/emit/sbpl"
	"github.com/jp-policy/jp-policy/internal/launcher"
	"github.com/jp-policy/jp-policy/internal/platform"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// --default builds (defaultPlan) and the launcher prepares each platform's sandbox in-process from RFD 075's
// default policy, with the workspace as the single grant.
func TestPrepareDefault(t *testing.T) {
	if platform.Host == platform.Windows {
		t.Skip("needs a POSIX sh on PATH")
	}
	ws := t.TempDir()
	root, err := filepath.EvalSymlinks(ws)
	if err != nil {
		t.Fatal(err)
	}
	environ := []string{"PATH=" + os.Getenv("PATH"), "SECRET=x"}
	for _, plat := range platform.All {
		b, err := defaultPlan(ws, "", plat)
		if err != nil {
			t.Fatalf("%s: %v", plat, err)
		}
		p, err := launcher.Prepare(&launcher.Options{Built: b, Workspace: ws, Argv: []string{"sh"}, Environ: environ, Platform: plat, ABI: 7})
		if err != nil {
			t.Fatalf("%s: %v", plat, err)
		}
		isTmp := func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") }
		env := slices.DeleteFunc(slices.Clone(p.Env), isTmp)
		if hasTmp := slices.ContainsFunc(p.Env, isTmp); (plat == platform.Linux) != hasTmp {
			t.Errorf("%s: TMPDIR in %q", plat, p.Env)
		}
		if p.Tool != "default" || len(env) != 1 || !strings.HasPrefix(env[0], "PATH=") {
			t.Errorf("%s: tool %q env %q", plat, p.Tool, p.Env)
		}
		switch plat {
		case platform.Linux:
			if p.Manifest == nil || p.Manifest.Root != root || !p.Manifest.Net.Restrict {
				t.Errorf("linux manifest %+v", p.Manifest)
			}
		case platform.Darwin:
			if !strings.Contains(p.ProfileText, "(deny default)") || !strings.Contains(p.ProfileText, root) {
				t.Errorf("darwin profile does not confine to %s:\n%s", root, p.ProfileText)
			}
		case platform.Windows:
			if p.Job == nil || !p.Job.Limits.KillOnJobClose {
				t.Errorf("windows job %+v", p.Job)
			}
		}
	}
}

// TestSandboxExecArgvDefinesProfileParams: every parameter a compiled
// profile uses is defined by the argv exec builds for it (an undefined
// one makes sandbox-exec refuse the profile, so a missing -D would break
// every run rather than widen one).
func TestSandboxExecArgvDefinesProfileParams(t *testing.T) {
	port := uint16(443)
	tool := defaultTool("/ws", "t")
	tool.Access.Net = []policy.NetRule{{Host: "example.com", Port: &port, Allow: true}}
	prof, _, err := sbpl.Build(tool)
	if err != nil {
		t.Fatal(err)
	}
	p := &launcher.Plan{ProfileText: string(prof), Path: "/bin/sh", Argv: []string{"sh"}, HostProxy: "127.0.0.1:5555", TmpDir: "/private/tmp/x"}
	argv := strings.Join(launcher.SandboxExecArgv(p), "\x00")
	used := regexp.MustCompile(`\(param "([A-Z_]+)"\)`).FindAllStringSubmatch(string(prof), -1)
	if len(used) == 0 {
		t.Fatal("the profile uses no parameter; the test checks nothing")
	}
	for _, m := range used {
		if !strings.Contains(argv, "\x00-D\x00"+m[1]+"=") {
			t.Errorf("profile parameter %s is not defined by %q", m[1], launcher.SandboxExecArgv(p))
		}
	}
}
