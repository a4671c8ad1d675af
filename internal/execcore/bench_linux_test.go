//go:build linux

package execcore

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/enforcetest"
	"github.com/jp-policy/jp-policy/internal/execplan"
)

// writeWorkspace is a compiled workspace as the fast path sees it with n
// tools: a config layer of about 900 bytes per tool, tool "t"'s exec plan
// (read-only on the workspace, the baseline /usr), and a pin whose tool
// table lists n tools. Only "t" is complete: the fast path reads nothing
// of the others but their pin lines.
func writeWorkspace(tb testing.TB, n int) (ws, data string) {
	ws = tb.TempDir()
	dir := filepath.Join(ws, ".jp", "policy")
	if err := os.MkdirAll(filepath.Join(dir, execplan.DirExec), 0o755); err != nil {
		tb.Fatal(err)
	}
	layer := filepath.Join(ws, ".jp", "config.toml")
	if err := os.WriteFile(layer, bytes.Repeat([]byte("[conversation.tools.x]\nsource = \"local\"\n# ...\n"), n*900/45), 0o644); err != nil {
		tb.Fatal(err)
	}
	sum, err := execplan.HashFile(layer)
	if err != nil {
		tb.Fatal(err)
	}
	all := uint64(1<<16 - 1)
	plan := execplan.Encode(&execplan.Plan{
		Tool: "t", Root: ws, Enabled: true,
		Fast: &execplan.Fast{
			NeedABI: 1, EnvMinimal: []string{"PATH", "HOME"},
			Baseline:  []execplan.Rule{{Path: "/usr", Access: 7, Clause: "baseline.usr"}},
			FS:        []execplan.Rule{{Path: ws, Access: 7, Clause: "fs[0]"}},
			TmpAccess: all, HandledFS: []uint64{0, 0x1fff, 0x3fff, 0x7fff, 0x7fff, all},
		},
	})
	if err := os.WriteFile(filepath.Join(dir, execplan.PlanFile("t")), plan, 0o644); err != nil {
		tb.Fatal(err)
	}
	psum := execplan.SHA256Hex(plan)
	tools := map[string]string{"t": psum}
	for i := 1; i < n; i++ {
		tools[fmt.Sprintf("tool_%d", i)] = psum
	}
	data = filepath.Join(tb.TempDir(), "data")
	ap := filepath.Join(dir, "policy.json")
	if err := artifact.WritePinReviewed(data, ws, ap, execplan.SHA256Hex(nil), tools, []execplan.Input{{Kind: "layer", Path: layer, SHA256: sum}}, &artifact.Policy{Root: ws}, ""); err != nil {
		tb.Fatal(err)
	}
	return ws, data
}

// BenchmarkFastPrepare is the fast path's in-process work before the
// sandbox (pin lookup, plan read and verify, staleness with the verify
// cache, command, environment, TMPDIR) for one tool in a workspace of 1
// and of 10,000 tools: the two must cost the same. "floor" reads and
// hashes the plan alone, the least any pinned read can do, in the same
// run.
func BenchmarkFastPrepare(b *testing.B) {
	defer SetSettleTime(0)()
	for _, n := range []int{1, 10000} {
		ws, data := writeWorkspace(b, n)
		b.Setenv("JP_USER_DATA_DIR", data)
		o := &Options{Workspace: ws, Tool: "t", Argv: []string{"/bin/true"}, Environ: []string{"PATH=/usr/bin:/bin", "SECRET=x"}}
		if _, _, _, err := prepare(o); err != nil {
			b.Fatal(err)
		}
		plan := filepath.Join(ws, ".jp", "policy", execplan.PlanFile("t"))
		b.Run(fmt.Sprintf("tools=%d/floor", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p, err := os.ReadFile(plan)
				if err != nil {
					b.Fatal(err)
				}
				execplan.SHA256Hex(p)
			}
		})
		b.Run(fmt.Sprintf("tools=%d/prepare", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, _, err := prepare(o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestFastPrepare: the plan's decisions reach the sandbox as written,
// with the run's TMPDIR added, and the environment filtered.
func TestFastPrepare(t *testing.T) {
	ws, data := writeWorkspace(t, 3)
	t.Setenv("JP_USER_DATA_DIR", data)
	if KernelABI() < 1 {
		enforcetest.Skip(t, "no Landlock")
	}
	s, path, env, err := prepare(&Options{Workspace: ws, Tool: "t", Argv: []string{"true"}, Environ: []string{"PATH=/usr/bin:/bin", "SECRET=x", "TERM=xterm"}})
	if err != nil {
		t.Fatal(err)
	}
	if path == "" || len(s.FS) != 2 || s.FS[0].Path != ws || s.FS[1].Clause != "tmpdir" || len(s.Baseline) != 1 {
		t.Fatalf("sandbox %+v, path %q", s, path)
	}
	if len(env) != 3 || env[0] != "PATH=/usr/bin:/bin" || env[1] != "TERM=xterm" || env[2] != "TMPDIR="+s.FS[1].Path {
		t.Fatalf("env %q", env)
	}
	// Another tool of the pin, a disabled one, or a forged plan: handed over.
	if _, _, _, err := prepare(&Options{Workspace: ws, Tool: "tool_1", Argv: []string{"true"}}); err == nil {
		t.Fatal("tool_1 (its pin line names t's plan) was not handed over")
	}
}
