package compiler

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// testWorkspace writes files (relative path -> content) under a fresh
// canonical root with a .jp/.id, and returns the root and options that
// keep JP's user directories inside the test's temp dir.
func testWorkspace(t *testing.T, files map[string]string) (string, Options) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "ws")
	files[".jp/.id"] = "test1"
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{
		"JP_USER_DATA_DIR":     filepath.Join(base, "data"),
		"JP_GLOBAL_CONFIG_DIR": filepath.Join(base, "global"),
		"HOME":                 base,
	}
	return root, Options{Config: configOptionsFor(root, env), OutDir: filepath.Join(base, "out")}
}

type fakePrompter struct {
	answer bool
	asked  []MountPrompt
}

func (f *fakePrompter) ApproveMount(m MountPrompt) (bool, error) {
	f.asked = append(f.asked, m)
	return f.answer, nil
}

const externalOnly = `[conversation.tools.t]
source = "local"
command = "true"

[[conversation.tools.t.access.fs]]
path = "fork"
external = true
read = true
`

func TestAllRulesDroppedIsDenyAll(t *testing.T) {
	root, opts := testWorkspace(t, map[string]string{".jp/config.toml": externalOnly})
	target := filepath.Join(filepath.Dir(root), "outside")
	if err := os.MkdirAll(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(root, "fork")); err != nil {
		t.Fatal(err)
	}
	res, err := Build(opts)
	if err != nil {
		t.Fatal(err)
	}
	acc := res.Artifact.Tools["t"].Access
	if len(acc.FS) != 1 || acc.FS[0].LexicalPath != "" || len(acc.FS[0].GrantedNames()) != 0 {
		t.Fatalf("a declared policy whose rules all dropped must be deny-all, got %+v", acc.FS)
	}
	c, err := policy.NewChecker(res.Root, &acc)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"README.md", "fork/x", "."} {
		if d := c.CheckFS(policy.Read, p); d.Allowed {
			t.Errorf("read %s allowed after every rule dropped", p)
		}
	}
}

func TestPrompterApprovesAndRejects(t *testing.T) {
	for _, answer := range []bool{false, true} {
		root, opts := testWorkspace(t, map[string]string{".jp/config.toml": externalOnly})
		target := filepath.Join(filepath.Dir(root), "outside")
		os.MkdirAll(target, 0o755)
		os.Symlink(target, filepath.Join(root, "fork"))
		opts.ApprovalsFile = filepath.Join(filepath.Dir(root), "approvals.json")
		p := &fakePrompter{answer: answer}
		opts.Prompter = p
		res, err := Build(opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.asked) != 1 || p.asked[0].RulePath != "fork" || p.asked[0].Target != target {
			t.Fatalf("asked %+v", p.asked)
		}
		if got := p.asked[0].Grants; len(got) != 1 || got[0].Tool != "t" || strings.Join(got[0].Caps, ",") != "read" {
			t.Errorf("grants shown = %+v", got)
		}
		b, _ := os.ReadFile(opts.ApprovalsFile)
		recorded := strings.Contains(string(b), target)
		if recorded != answer {
			t.Errorf("answer %v: approvals.json records target = %v:\n%s", answer, recorded, b)
		}
		fs := res.Artifact.Tools["t"].Access.FS
		approved := len(fs) == 1 && fs[0].ApprovedTarget != nil && *fs[0].ApprovedTarget == target
		if approved != answer {
			t.Errorf("answer %v: compiled %+v", answer, fs)
		}
	}
}

func TestCorruptApprovalsNotOverwrittenWithoutApproval(t *testing.T) {
	root, opts := testWorkspace(t, map[string]string{".jp/config.toml": externalOnly})
	target := filepath.Join(filepath.Dir(root), "outside")
	os.MkdirAll(target, 0o755)
	os.Symlink(target, filepath.Join(root, "fork"))
	opts.ApprovalsFile = filepath.Join(filepath.Dir(root), "approvals.json")
	os.WriteFile(opts.ApprovalsFile, []byte("{not json"), 0o600)
	opts.Prompter = &fakePrompter{answer: false}
	res, err := Build(opts)
	if err != nil {
		t.Fatal(err)
	}
	warned := false
	for _, d := range res.Diagnostics {
		if strings.Contains(d.String(), "approvals.json") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no warning about the corrupt store: %v", res.Diagnostics)
	}
	if b, _ := os.ReadFile(opts.ApprovalsFile); string(b) != "{not json" {
		t.Errorf("corrupt store was overwritten without an approval: %q", b)
	}
}

func TestDefaultAndUndeclaredTypes(t *testing.T) {
	_, opts := testWorkspace(t, map[string]string{".jp/config.toml": `
[conversation.tools.plain]
source = "local"
command = "true"

[conversation.tools.netonly]
source = "local"
command = "true"

[[conversation.tools.netonly.access.net]]
host = "api.example.com"
allow = true

[conversation.tools.nocmds]
source = "local"
command = "true"

[conversation.tools.nocmds.access.commands]

[conversation.tools.mcp_tool]
source = "mcp.srv.tool"
`})
	res, err := Build(opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Artifact.Tools["mcp_tool"]; ok {
		t.Error("an MCP tool was compiled")
	}
	plain := res.Artifact.Tools["plain"]
	if !plain.Defaulted {
		t.Error("a tool without access is not marked defaulted")
	}
	if got, _ := json.Marshal(plain.Access); string(got) != mustJSON(t, policy.Default()) {
		t.Errorf("defaulted access = %s", got)
	}
	netonly := res.Artifact.Tools["netonly"]
	if netonly.Defaulted || len(netonly.Access.FS) != 0 {
		t.Errorf("fs undeclared must stay [] (unrestricted, confined): %+v", netonly.Access.FS)
	}
	if got := netonly.Access.Env; len(got) != len(policy.Default().Env) {
		t.Errorf("env undeclared must be the minimal set, got %+v", got)
	}
	// The OS view of an unrestricted fs list is the whole workspace with
	// every capability, so the layers agree.
	lm := res.Files[netonly.Manifests["linux"]]
	if !strings.Contains(string(lm), `"execute"`) {
		t.Errorf("landlock manifest of an unrestricted fs list lacks execute:\n%s", lm)
	}
	nocmds := res.Artifact.Tools["nocmds"].Access
	if nocmds.Commands == nil || len(nocmds.Commands) != 0 {
		t.Fatalf("an empty commands table must compile to 'no program', got %#v", nocmds.Commands)
	}
	b, _ := json.Marshal(nocmds)
	if !strings.Contains(string(b), `"commands":{}`) {
		t.Errorf("empty commands lost in JSON: %s", b)
	}
}

func TestCompileWritesPinAndHashes(t *testing.T) {
	_, opts := testWorkspace(t, map[string]string{".jp/config.toml": "[conversation.tools.t]\nsource = \"local\"\ncommand = \"true\"\n"})
	res, out, err := Compile(opts)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(out, artifact.FileName))
	if err != nil {
		t.Fatal(err)
	}
	dataDir := opts.Config.Getenv("JP_USER_DATA_DIR")
	if err := artifact.CheckPin(dataDir, res.Root, filepath.Join(out, artifact.FileName), data); err != nil {
		t.Fatalf("fresh artifact fails its pin: %v", err)
	}
	if err := artifact.CheckPin(dataDir, res.Root, filepath.Join(out, artifact.FileName), append(data, ' ')); err == nil {
		t.Fatal("a changed policy.json passes the pin")
	}
	tool := res.Artifact.Tools["t"]
	for plat, rel := range tool.Manifests {
		m, err := os.ReadFile(filepath.Join(out, rel))
		if err != nil {
			t.Fatal(err)
		}
		if err := tool.CheckManifest(plat, rel, m); err != nil {
			t.Errorf("%s: %v", plat, err)
		}
		if err := tool.CheckManifest(plat, rel, append(m, '\n')); err == nil {
			t.Errorf("%s: a changed manifest passes", plat)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Every symlink a rule path went through is an input: retargeting an
// in-workspace alias, or a link inside an approved target's chain, makes
// the artifact stale.
func TestInputsFollowTheCanonicaliser(t *testing.T) {
	root, opts := testWorkspace(t, map[string]string{
		".jp/config.toml": "[conversation.tools.t]\nsource = \"local\"\ncommand = \"true\"\n\n[[conversation.tools.t.access.fs]]\npath = \"alias/sub\"\nread = true\n",
		"src/sub/f":       "x",
		"docs/sub/f":      "y",
	})
	if err := os.Symlink("src", filepath.Join(root, "alias")); err != nil {
		t.Fatal(err)
	}
	res, err := Build(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := artifact.Verify(res.Artifact); err != nil {
		t.Fatalf("fresh artifact is stale: %v", err)
	}
	if got := res.Artifact.Tools["t"].Access.FS[0].LexicalPath; got != "src/sub" {
		t.Fatalf("rule bound to %q, want the canonical src/sub", got)
	}
	os.Remove(filepath.Join(root, "alias"))
	if err := os.Symlink("docs", filepath.Join(root, "alias")); err != nil {
		t.Fatal(err)
	}
	if err := artifact.Verify(res.Artifact); !errors.Is(err, artifact.ErrStale) {
		t.Fatalf("retargeted alias: Verify = %v, want stale", err)
	}
}
