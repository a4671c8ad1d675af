package mount

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/jp-policy/jp-policy/internal/platform"

	"github.com/jp-policy/jp-policy/internal/approvals"
)

// fixture builds a workspace with src/, a file, a foreign symlink and two
// external directories, and returns its environment.
func fixture(t *testing.T) Env {
	t.Helper()
	if platform.Host == platform.Windows {
		t.Skip("symlinks need Developer Mode on Windows")
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	for _, d := range []string{"ws/.jp", "ws/src", "home/x", "home/y"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(ws, "file"), nil, 0o644)
	os.Symlink(filepath.Join(base, "home", "y"), filepath.Join(ws, "other"))
	os.Symlink(filepath.Join(base, "home"), filepath.Join(ws, "outlink"))
	return Env{Root: ws, Cwd: ws, Home: filepath.Join(base, "home")}
}

var testTools = []ToolInfo{
	{Name: "fs_read_file", Source: "local", Local: true, Enabled: true},
	{Name: "fs_modify_file", Source: "local", Local: true, Enabled: true, FS: []ExistingRule{{Lexical: "src"}}},
	{Name: "has_fork", Source: "local", Local: true, Enabled: true, FS: []ExistingRule{{Lexical: "fork"}}},
	{Name: "off_tool", Source: "local", Local: true, Enabled: false},
	{Name: "web", Source: "mcp.web", Enabled: true},
}

func TestPrepareErrors(t *testing.T) {
	env := fixture(t)
	tests := []struct {
		spec  string
		tools []ToolInfo
		kind  ErrorKind
	}{
		{"fork=~/x:rw", testTools, KindWriteRequiresTool},
		{"../x=~/x", testTools, KindOutsideWorkspace},
		{".jp/x=~/x", testTools, KindManagedStorage},
		{"outlink/fork=~/x", testTools, KindOutsideWorkspace},
		{"file=~/x", testTools, KindInTheWay},
		{"file/sub=~/x", testTools, KindInTheWay},
		{"src=~/x", testTools, KindInTheWay},
		{"other=~/x", testTools, KindRetarget},
		{"fork=src", testTools, KindTargetInsideWorkspace},
		{"fork=.", testTools, KindTargetInsideWorkspace},
		{"fs_read_fil:fork=~/x", testTools, KindUnknownTool},
		{"web:fork=~/x", testTools, KindNotLocalTool},
		{"fork=~/x", testTools[3:], KindNoTools},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			_, err := Prepare(tt.spec, tt.tools, env)
			var me *Error
			if !errors.As(err, &me) || me.Kind != tt.kind {
				t.Fatalf("Prepare(%q) error = %v, want kind %s", tt.spec, err, tt.kind)
			}
		})
	}
}

func TestPrepareScope(t *testing.T) {
	env := fixture(t)
	p, err := Prepare("fork=~/x", testTools, env)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"fs_modify_file", "fs_read_file", "has_fork"}; !reflect.DeepEqual(p.Tools, want) {
		t.Fatalf("Tools = %v, want %v (enabled local only)", p.Tools, want)
	}
	if !p.NeedsConfirmation() {
		t.Fatal("a mount without TOOL: needs confirmation")
	}
	want := map[string][]Rule{
		"fs_read_file":   {WorkspaceDefaultRule(), MountRule("fork", ReadOnly)},
		"fs_modify_file": {MountRule("fork", ReadOnly)},
	}
	if !reflect.DeepEqual(p.Rules, want) {
		t.Fatalf("Rules = %+v, want %+v", p.Rules, want)
	}
	if _, ok := p.Skipped["has_fork"]; !ok {
		t.Fatalf("has_fork already has a rule for fork and must be skipped: %+v", p.Skipped)
	}
	if p.Target != filepath.Join(env.Home, "x") || p.RulePath != "fork" || p.Link != filepath.Join(env.Root, "fork") {
		t.Fatalf("plan = %+v", p)
	}
	// A named disabled tool is in scope: naming it is the choice.
	if p, err := Prepare("off_tool:fork=~/x:rw", testTools, env); err != nil || p.NeedsConfirmation() || p.Rules["off_tool"][1].Write != true {
		t.Fatalf("named tool: %+v %v", p, err)
	}
}

func TestApplyRollsBackOnConfigFailure(t *testing.T) {
	env := fixture(t)
	cfg := filepath.Join(env.Root, ".jp", "config.toml")
	orig := []byte("# keep\n[conversation.tools.fs_read_file]\nsource = \"local\"\n")
	os.WriteFile(cfg, orig, 0o444)
	store := filepath.Join(filepath.Dir(env.Root), "data", approvals.FileName)
	p, err := Prepare("fs_read_file:a/b/fork=~/x", testTools, env)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(p, env, Files{Config: cfg, Approvals: store}, time.Now()); err == nil {
		t.Fatal("Apply into a read-only config must fail")
	}
	if _, err := os.Lstat(filepath.Join(env.Root, "a")); !os.IsNotExist(err) {
		t.Fatalf("directories made for the link were left: %v", err)
	}
	if _, err := os.Stat(store); !os.IsNotExist(err) {
		t.Fatalf("approval left behind: %v", err)
	}
	if got, _ := os.ReadFile(cfg); string(got) != string(orig) {
		t.Fatalf("config changed: %q", got)
	}

	// Writable now: the mount goes through, and unmount undoes it exactly.
	os.Chmod(cfg, 0o644)
	if _, err := Apply(p, env, Files{Config: cfg, Approvals: store}, time.Now()); err != nil {
		t.Fatal(err)
	}
	s, _, _ := approvals.Load(store)
	if st := s.Classify("a/b/fork", filepath.Join(env.Home, "x"), env.Root); st.Kind != approvals.Approved {
		t.Fatalf("approval = %+v", st)
	}
	res, err := Unmount("a/b/fork", env, Files{Config: cfg, Approvals: store})
	if err != nil || len(res.Blocks) != 2 || len(res.Links) != 1 || len(res.Revoked) != 1 {
		t.Fatalf("Unmount = %+v, %v", res, err)
	}
	if got, _ := os.ReadFile(cfg); string(got) != string(orig) {
		t.Fatalf("config not restored: %q", got)
	}
}

func TestSelectBlocksKeepsDefaultWhileMountsRemain(t *testing.T) {
	all := []Found{
		{Tool: "t", RulePath: ".", Default: true},
		{Tool: "t", RulePath: "a"},
		{Tool: "t", RulePath: "b"},
		{Tool: "u", RulePath: ".", Default: true},
		{Tool: "u", RulePath: "a"},
	}
	got := selectBlocks(all, map[string]bool{"a": true})
	want := []Found{all[1], all[4], all[3]}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("selectBlocks(a) = %+v, want %+v", got, want)
	}
	if got := selectBlocks(all, map[string]bool{"a": true, "b": true}); len(got) != 5 {
		t.Fatalf("removing every mount must take both defaults: %+v", got)
	}
}
