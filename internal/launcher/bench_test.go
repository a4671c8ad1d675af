package launcher

import (
	"bytes"
	"encoding/json"

	"github.com/jp-policy/jp-policy/internal/execplan"
	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/platform"

	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/plan/landlock"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// BenchmarkPrepare measures the in-process part of `jp-policy exec` on
// the exec path: read policy.json's needed parts, verify its inputs,
// read a 10-rule manifest, resolve the program, decide commands and the
// environment (60 variables in, the allowlist out).
func BenchmarkPrepare(b *testing.B) {
	if platform.Host == platform.Windows {
		b.Skip("needs a POSIX sh on PATH")
	}
	m := testManifest()
	m.FS = nil
	for i := range 10 {
		m.FS = append(m.FS, landlock.PathRule{
			Path: fmt.Sprintf("/ws/dir%d", i), Access: []string{landlock.ReadFile, landlock.ReadDir, landlock.WriteFile},
			Clause: fmt.Sprintf("fs[%d]", i),
		})
	}
	m.Env.Rules = []policy.EnvRule{{Name: "GITHUB_TOKEN", Read: true}, {Name: "AWS_*", Read: true}, {Name: "AWS_SECRET_ACCESS_KEY"}}
	m.Commands = map[string]policy.CommandRule{"sh": {Args: [][]string{{"-c", "**"}}}, "git": {}, "cargo": {Args: [][]string{{"check", "**"}}}}
	ws := writeArtifact(&testing.T{}, m)
	defer os.RemoveAll(ws)
	environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=/root", "LANG=C.UTF-8", "GITHUB_TOKEN=t", "AWS_REGION=eu"}
	for i := len(environ); i < 60; i++ {
		environ = append(environ, fmt.Sprintf("NOISE_%d=value", i))
	}
	o := Options{Workspace: ws, Tool: "t", Argv: []string{"sh", "-c", "true"}, Environ: environ, Platform: platform.Linux, ABI: 7}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Prepare(&o); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFilterEnv is the environment decision alone.
func BenchmarkFilterEnv(b *testing.B) {
	env := plan.Env{Minimal: policy.MinimalEnv, Rules: []policy.EnvRule{{Name: "AWS_*", Read: true}, {Name: "AWS_SECRET_ACCESS_KEY"}}}
	var environ []string
	for i := range 60 {
		environ = append(environ, fmt.Sprintf("VAR_%d=value", i))
	}
	environ = append(environ, "PATH=/bin", "AWS_REGION=eu")
	b.ReportAllocs()
	for b.Loop() {
		FilterEnv(environ, env, nil)
	}
}

// bigArtifact is a policy.json shaped like JP's own workspace's: ~100
// tools, each with its per-platform clause tables.
func bigArtifact(b *testing.B) []byte {
	tools := map[string]*artifact.Tool{}
	for i := range 100 {
		t := &artifact.Tool{Enabled: true, Manifests: map[platform.Platform]string{platform.Linux: fmt.Sprintf("landlock/t%d.json", i)},
			Enforcement: map[platform.Platform][]artifact.ClauseStatus{}}
		for _, p := range platform.All {
			for j := range 25 {
				t.Enforcement[p] = append(t.Enforcement[p], artifact.ClauseStatus{ID: fmt.Sprintf("fs[%d]", j),
					Status: plan.Degraded, How: "split around narrower rules \"quoted\" {braces} [brackets]"})
			}
		}
		tools[fmt.Sprintf("tool_%d", i)] = t
	}
	js, err := json.Marshal(artifact.Policy{Format: artifact.FormatVersion, Root: "/ws", Digest: "d", Tools: tools})
	if err != nil {
		b.Fatal(err)
	}
	return js
}

// BenchmarkArtifactRead compares the launcher's lean read of one tool
// with encoding/json decoding the same fields from the whole file.
func BenchmarkArtifactRead(b *testing.B) {
	js := bigArtifact(b)
	b.Logf("artifact: %d KB", len(js)/1024)
	b.Run("lean", func(b *testing.B) {
		b.SetBytes(int64(len(js)))
		for b.Loop() {
			var a leanArtifact
			if _, found, err := leanArtifactDecode(js, "tool_42", &a); err != nil || !found {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(js)))
		for b.Loop() {
			var a leanArtifact
			if err := json.Unmarshal(js, &a); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// writeToolsWorkspace is a compiled workspace as exec sees it with n
// tools: a config layer of about 900 bytes per tool (what JP configs of
// that many tools weigh), policy.json, tool "t"'s exec file and manifest,
// and a pin whose tool table lists n tools. Only "t" is complete: exec
// reads nothing of the others but their pin lines.
func writeToolsWorkspace(b *testing.B, m *landlock.Manifest, n int) (ws, data string) {
	ws = b.TempDir()
	dir := filepath.Join(ws, ".jp", "policy")
	layer := filepath.Join(ws, ".jp", "config.toml")
	must(b, os.MkdirAll(filepath.Join(dir, "landlock"), 0o755))
	must(b, os.MkdirAll(filepath.Join(dir, artifact.DirExec), 0o755))
	must(b, os.WriteFile(layer, bytes.Repeat([]byte("[conversation.tools.x]\nsource = \"local\"\n# ...\n"), n*900/45), 0o644))
	sum, err := artifact.HashFile(layer)
	must(b, err)
	msum, bases := writeManifestFiles(b, dir, m)
	p := &artifact.Policy{
		Format: artifact.FormatVersion, Root: ws, Digest: "d1",
		Inputs: []artifact.Input{{Kind: "layer", Path: layer, SHA256: sum}},
		Tools: map[string]*artifact.Tool{"t": {Enabled: true, Manifests: map[platform.Platform]string{platform.Linux: "landlock/t.json"},
			ManifestSHA256: map[platform.Platform]string{platform.Linux: msum}, BaseSHA256: bases}},
	}
	ap := filepath.Join(dir, artifact.FileName)
	must(b, writeJSON(ap, p))
	plan := execplan.Encode(artifact.PlanOf(p, "t"))
	must(b, os.WriteFile(filepath.Join(dir, execplan.PlanFile("t")), plan, 0o644))
	psum := artifact.SHA256Hex(plan)
	tools := map[string]string{"t": psum}
	for i := 1; i < n; i++ {
		tools[fmt.Sprintf("tool_%d", i)] = psum
	}
	data = filepath.Join(b.TempDir(), "data")
	pb, err := os.ReadFile(ap)
	must(b, err)
	must(b, artifact.WritePinReviewed(data, ws, ap, artifact.SHA256Hex(pb), tools, p.Inputs, &artifact.Policy{Root: ws}, ""))
	return ws, data
}

// BenchmarkPrepareTools is exec's in-process work (pin lookup, exec file
// read and verify, input staleness, manifest read, plan) for one tool in
// a workspace of 1 and of 10,000 tools (every input hashed on every
// run).
func BenchmarkPrepareTools(b *testing.B) {
	if runtime.GOOS == "windows" {
		b.Skip("needs a POSIX sh on PATH")
	}
	for _, n := range []int{1, 10000} {
		ws, data := writeToolsWorkspace(b, testManifest(), n)
		o := Options{Workspace: ws, Tool: "t", Argv: []string{"sh", "-c", "true"}, Environ: []string{"PATH=" + os.Getenv("PATH")}, Platform: "linux", ABI: 7}
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			b.Setenv("JP_USER_DATA_DIR", data)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Prepare(&o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
