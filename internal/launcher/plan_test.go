package launcher

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/platform"
	"github.com/jp-policy/jp-policy/internal/seccomp"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"

	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/emit/winjob"
	"github.com/jp-policy/jp-policy/internal/plan/landlock"
	jobplan "github.com/jp-policy/jp-policy/internal/plan/winjob"
	"github.com/jp-policy/jp-policy/internal/policy"
)

func testManifest() *landlock.Manifest {
	return &landlock.Manifest{
		Version: landlock.FormatVersion, Tool: "t", Root: "/ws", MinABI: 6,
		FS: []landlock.PathRule{
			{Path: "/ws", Access: []string{landlock.ReadFile, landlock.ReadDir, landlock.Refer}, Clause: "fs[0]"},
			{Path: "/ws/out", Access: []string{landlock.WriteFile, landlock.Truncate}, Clause: "fs[1]"},
		},
		Baseline: []landlock.PathRule{{Path: "/usr", Access: []string{landlock.ReadFile, landlock.Execute}, Clause: "baseline.runtime"}},
		Net:      landlock.Net{Restrict: true, ConnectTCP: []uint16{443}},
		Scope:    []string{"signal", "abstract_unix_socket"},
		Env:      plan.Env{Minimal: policy.MinimalEnv},
		Seccomp:  &seccomp.Spec{Inet: seccomp.InetTCP},
		Clauses: []plan.Clause{
			{ID: "fs[0]", What: "read", Status: plan.Enforced, MinABI: 2},
			{ID: "fs[1]", What: "update", Status: plan.Enforced, MinABI: 3},
			{ID: "net", What: "tcp", Status: plan.Enforced, MinABI: 4},
			{ID: "net[0]", What: "host", Status: plan.Degraded, MinABI: 4, How: "port only; host checked cooperatively"},
			{ID: "scope.signal", What: "signals", Status: plan.Enforced, MinABI: 6},
			{ID: "env", What: "env", Status: plan.Enforced},
		},
	}
}

func ids(ds []Degradation) string {
	var s []string
	for _, d := range ds {
		s = append(s, d.Clause.ID)
	}
	return strings.Join(s, ",")
}

func TestDegraded(t *testing.T) {
	tests := []struct {
		abi  int
		want string
	}{
		{0, "fs[0],fs[1],net,net[0],scope.signal"},
		{1, "fs[0],fs[1],net,net[0],scope.signal"},
		{2, "fs[1],net,net[0],scope.signal"},
		{3, "net,net[0],scope.signal"},
		{5, "scope.signal"},
		{6, ""},
		{7, ""},
	}
	for _, tt := range tests {
		got, err := degraded(testManifest(), tt.abi)
		if err != nil {
			t.Fatal(err)
		}
		if ids(got) != tt.want {
			t.Errorf("ABI %d: degraded %q, want %q", tt.abi, ids(got), tt.want)
		}
	}
}

// A manifest whose clauses understate what its rules need still fails
// closed: the launcher checks the rights themselves.
func TestDegradedUnderstatedClauses(t *testing.T) {
	m := testManifest()
	m.Clauses, m.MinABI = nil, 0
	got, err := degraded(m, 5)
	if err != nil {
		t.Fatal(err)
	}
	if ids(got) != "manifest" || got[0].Need != 6 {
		t.Errorf("got %v, want one synthetic clause needing ABI 6", got)
	}
	m.Scope = nil
	if got, _ := degraded(m, 3); ids(got) != "manifest" || got[0].Need != 4 {
		t.Errorf("net at ABI 3: got %v, want one clause needing ABI 4", got)
	}
}

func TestUnknownRightsRefused(t *testing.T) {
	m := testManifest()
	m.FS[0].Access = append(m.FS[0].Access, "teleport")
	var ue *UnknownRightError
	if _, err := degraded(m, 7); !errors.As(err, &ue) || ue.Name != "teleport" {
		t.Errorf("unknown right: got %v", err)
	}
	m = testManifest()
	m.Scope = []string{"ptrace"}
	if _, err := degraded(m, 7); !errors.As(err, &ue) || ue.Name != "ptrace" {
		t.Errorf("unknown scope: got %v", err)
	}
}

func TestRightsByABI(t *testing.T) {
	prev := uint64(0)
	for abi := 0; abi <= 8; abi++ {
		r := fsRightsFor(abi)
		if r&prev != prev {
			t.Errorf("ABI %d drops rights of ABI %d", abi, abi-1)
		}
		prev = r
	}
	if fsRightsFor(7)&fsRefer == 0 || fsRightsFor(1)&fsRefer != 0 {
		t.Error("refer must arrive with ABI 2")
	}
	if netRightsFor(3) != 0 || netRightsFor(4) == 0 || scopesFor(5) != 0 || scopesFor(6) == 0 {
		t.Error("net arrives with ABI 4, scopes with ABI 6")
	}
	if fileRights&(fsReadDir|fsMakeReg|fsRemoveFile|fsRefer) != 0 {
		t.Error("directory rights leaked into fileRights")
	}
}

// TestRightsAreKernelBits: package landlock's one rights table (names,
// bits, first ABIs) is what the kernel means, by go-landlock's constants,
// since the launcher hands its bits to the kernel as they are.
func TestRightsAreKernelBits(t *testing.T) {
	kernel := map[string]uint64{
		landlock.Execute: llsyscall.AccessFSExecute, landlock.WriteFile: llsyscall.AccessFSWriteFile,
		landlock.ReadFile: llsyscall.AccessFSReadFile, landlock.ReadDir: llsyscall.AccessFSReadDir,
		landlock.RemoveDir: llsyscall.AccessFSRemoveDir, landlock.RemoveFile: llsyscall.AccessFSRemoveFile,
		landlock.MakeChar: llsyscall.AccessFSMakeChar, landlock.MakeDir: llsyscall.AccessFSMakeDir,
		landlock.MakeReg: llsyscall.AccessFSMakeReg, landlock.MakeSock: llsyscall.AccessFSMakeSock,
		landlock.MakeFifo: llsyscall.AccessFSMakeFifo, landlock.MakeBlock: llsyscall.AccessFSMakeBlock,
		landlock.MakeSym: llsyscall.AccessFSMakeSym, landlock.Refer: llsyscall.AccessFSRefer,
		landlock.Truncate: llsyscall.AccessFSTruncate, landlock.IoctlDev: llsyscall.AccessFSIoctlDev,
	}
	var all uint64
	for name, want := range kernel {
		got, err := parseRights("c", []string{name})
		if err != nil || got != want {
			t.Errorf("%s = %#x, %v; the kernel's bit is %#x", name, got, err, want)
		}
		all |= want
	}
	if fsRightsFor(5) != all {
		t.Errorf("ABI 5 handles %#x, want every right %#x", fsRightsFor(5), all)
	}
	abi1 := all &^ (llsyscall.AccessFSRefer | llsyscall.AccessFSTruncate | llsyscall.AccessFSIoctlDev)
	for abi, want := range map[int]uint64{0: 0, 1: abi1, 2: abi1 | llsyscall.AccessFSRefer, 3: abi1 | llsyscall.AccessFSRefer | llsyscall.AccessFSTruncate, 4: all &^ llsyscall.AccessFSIoctlDev} {
		if got := fsRightsFor(abi); got != want {
			t.Errorf("ABI %d handles %#x, want %#x", abi, got, want)
		}
	}
	for mask, want := range map[uint64]int{0: 0, llsyscall.AccessFSReadFile: 1, llsyscall.AccessFSRefer: 2, llsyscall.AccessFSTruncate | llsyscall.AccessFSReadDir: 3, llsyscall.AccessFSIoctlDev: 5} {
		if got := minABIForFS(mask); got != want {
			t.Errorf("minABIForFS(%#x) = %d, want %d", mask, got, want)
		}
	}
	if want := uint64(llsyscall.AccessFSExecute | llsyscall.AccessFSWriteFile | llsyscall.AccessFSReadFile | llsyscall.AccessFSTruncate | llsyscall.AccessFSIoctlDev); fileRights != want {
		t.Errorf("fileRights = %#x, want %#x", fileRights, want)
	}
}

func TestPrepareLinux(t *testing.T) {
	if platform.Host == platform.Windows {
		t.Skip("needs a POSIX sh on PATH")
	}
	environ := []string{"PATH=" + os.Getenv("PATH"), "SECRET=x", "HOME=/h"}
	withCmds := testManifest()
	withCmds.Commands = map[string]policy.CommandRule{"sh": {Args: [][]string{{"-c", "**"}}}}
	tests := []struct {
		name    string
		m       *landlock.Manifest
		abi     int
		best    bool
		require int
		argv    []string
		wantErr any
	}{
		{"full ABI", testManifest(), 7, false, 0, []string{"sh", "-c", "true"}, nil},
		{"old kernel refused", testManifest(), 3, false, 0, []string{"sh"}, new(*UnenforceableError)},
		{"old kernel, best effort", testManifest(), 3, true, 0, []string{"sh"}, nil},
		{"no landlock, best effort", testManifest(), 0, true, 0, []string{"sh"}, nil},
		{"require-abi above kernel", testManifest(), 7, false, 8, []string{"sh"}, new(*ABITooLowError)},
		{"require-abi beats best effort", testManifest(), 3, true, 4, []string{"sh"}, new(*ABITooLowError)},
		{"command allowed", withCmds, 7, false, 0, []string{"sh", "-c", "x"}, nil},
		{"command refused", withCmds, 7, false, 0, []string{"sh", "-x"}, new(*CommandDeniedError)},
		{"missing program", testManifest(), 7, false, 0, []string{"no-such-program-xyz"}, new(*NotFoundError)},
		{"no command", testManifest(), 7, false, 0, nil, new(*UsageError)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Prepare(&Options{
				Built: &Built{Linux: tt.m}, Tool: "t", Argv: tt.argv, Environ: environ,
				Platform: platform.Linux, ABI: tt.abi, BestEffort: tt.best, RequireABI: tt.require,
			})
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("unexpected refusal: %v", err)
				}
				env, tmp := withoutTmp(p.Env)
				if fi, err := os.Stat(tmp); err != nil || !fi.IsDir() {
					t.Errorf("TMPDIR=%q: not a directory (%v)", tmp, err)
				}
				// HOME is kept, as the run's scratch home (/h is outside
				// every grant): a directory of its own inside TMPDIR.
				if strings.Join(env, " ") != environ[0]+" HOME="+tmp+"/.home" {
					t.Errorf("env %q: SECRET must be stripped, PATH kept and HOME the scratch home", p.Env)
				}
				if fi, err := os.Stat(tmp + "/.home"); err != nil || !fi.IsDir() {
					t.Errorf("scratch HOME: not a directory (%v)", err)
				}
				if !filepath.IsAbs(p.Path) {
					t.Errorf("path %q not resolved", p.Path)
				}
				return
			}
			if err == nil || !errors.As(err, tt.wantErr) {
				t.Fatalf("error %v (%T), want %T", err, err, tt.wantErr)
			}
		})
	}
}

// writeArtifact lays out a compiled workspace with one tool "t" whose
// linux manifest is m and whose darwin/windows manifests are stubs.
func writeArtifact(t *testing.T, m *landlock.Manifest) (ws string) {
	t.Helper()
	ws = t.TempDir()
	dir := filepath.Join(ws, ".jp", "policy")
	layer := filepath.Join(ws, ".jp", "config.toml")
	must(t, os.MkdirAll(filepath.Join(dir, "landlock"), 0o755))
	must(t, os.WriteFile(layer, []byte("# layer\n"), 0o644))
	sum, err := artifact.HashFile(layer)
	must(t, err)
	m.Root = ws // as compile writes it: exec checks that the manifest is this workspace's
	_, bases := writeManifestFiles(t, dir, m)
	must(t, os.MkdirAll(filepath.Join(dir, "winjob"), 0o755))
	must(t, writeJSON(filepath.Join(dir, "winjob", "t.json"), jobplan.Manifest{Version: jobplan.FormatVersion, Tool: "t", Root: ws, Limits: jobplan.Limits{ActiveProcessLimit: 1}, Env: plan.Env{Minimal: winjob.Minimal}}))
	must(t, os.MkdirAll(filepath.Join(dir, "sbpl"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "sbpl", "t.sb"), []byte(";; the tool's own rules\n"), 0o644))
	manifests := map[platform.Platform]string{platform.Linux: "landlock/t.json", platform.Darwin: "sbpl/t.sb", platform.Windows: "winjob/t.json"}
	sums := map[platform.Platform]string{}
	for plat, rel := range manifests {
		h, err := artifact.HashFile(filepath.Join(dir, rel))
		must(t, err)
		sums[plat] = h
	}
	p := artifact.Policy{
		Format: artifact.FormatVersion, Root: ws, Digest: "d1",
		Inputs: []artifact.Input{{Kind: "layer", Path: layer, SHA256: sum}},
		Tools: map[string]*artifact.Tool{"t": {Enabled: true, Manifests: manifests, ManifestSHA256: sums, BaseSHA256: bases,
			Access: policy.AccessPolicy{Env: []policy.EnvRule{{Name: "TOKEN", Read: true}}}}},
	}
	path := filepath.Join(dir, artifact.FileName)
	must(t, writeJSON(path, p))
	// Pin it as compile would, in a data directory of the test's own.
	data := filepath.Join(t.TempDir(), "data")
	t.Setenv("JP_USER_DATA_DIR", data)
	b, err := os.ReadFile(path)
	must(t, err)
	must(t, artifact.WritePin(data, ws, path, b))
	return ws
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestPrepareFromArtifact(t *testing.T) {
	if platform.Host == platform.Windows {
		t.Skip("needs a POSIX sh on PATH")
	}
	ws := writeArtifact(t, testManifest())
	base := Options{Workspace: ws, Tool: "t", Argv: []string{"sh"}, Environ: []string{"TOKEN=1", "X=2"}, ABI: 7}

	for _, plat := range platform.All {
		o := base
		o.Platform = plat
		p, err := Prepare(&o)
		if err != nil {
			t.Fatalf("%s: %v", plat, err)
		}
		switch plat {
		case platform.Linux:
			if p.Manifest == nil || p.Manifest.Tool != "t" {
				t.Errorf("linux: manifest not read")
			}
			if env, _ := withoutTmp(p.Env); len(env) != 0 {
				t.Errorf("linux env %q: the manifest grants no TOKEN", p.Env)
			}
		case platform.Darwin:
			if p.Profile != filepath.Join(ws, ".jp", "policy", "sbpl", "t.sb") {
				t.Errorf("darwin profile %q", p.Profile)
			}
			// The shared base, then the tool's own rules.
			if p.ProfileText != "(version 1)\n(deny default)\n;; the tool's own rules\n" {
				t.Errorf("darwin profile text %q", p.ProfileText)
			}
			if strings.Join(p.Env, ",") != "TOKEN=1" {
				t.Errorf("darwin env %q: the artifact's env rules grant TOKEN", p.Env)
			}
		case platform.Windows:
			if p.Job == nil || p.Job.Limits.ActiveProcessLimit != 1 {
				t.Errorf("windows job %+v", p.Job)
			}
		}
	}

	o := base
	o.Platform, o.Tool = platform.Linux, "nope"
	var nf *ToolNotFoundError
	if _, err := Prepare(&o); !errors.As(err, &nf) || strings.Join(nf.Known, ",") != "t" {
		t.Errorf("unknown tool: %v", err)
	}

	o = base
	o.Platform = platform.Linux
	must(t, os.WriteFile(filepath.Join(ws, ".jp", "config.toml"), []byte("# changed\n"), 0o644))
	_, err := Prepare(&o)
	if !errors.Is(err, artifact.ErrStale) || !strings.Contains(err.Error(), "run `jp-policy compile`") {
		t.Errorf("stale artifact: %v", err)
	}

	o = base
	o.Workspace = t.TempDir()
	o.Platform = platform.Linux
	var ma *MissingArtifactError
	if _, err := Prepare(&o); !errors.As(err, &ma) {
		t.Errorf("missing artifact: %v", err)
	}
}

func TestFindWorkspace(t *testing.T) {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	deep := filepath.Join(ws, "a", "b")
	must(t, os.MkdirAll(filepath.Join(ws, ".jp"), 0o755))
	must(t, os.MkdirAll(deep, 0o755))
	got, err := FindWorkspace(deep)
	if err != nil || got != ws {
		t.Errorf("FindWorkspace(%s) = %s, %v; want %s", deep, got, err, ws)
	}
}

func TestDryRunReport(t *testing.T) {
	p := &Plan{Tool: "t", Platform: platform.Linux, ABI: 3, Manifest: testManifest(), Path: "/bin/sh", Argv: []string{"sh"}, Env: []string{"PATH=/bin"}}
	var err error
	if p.Degraded, err = degraded(p.Manifest, 3); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	must(t, WriteDryRun(&b, p, &UnenforceableError{ABI: 3, Degraded: p.Degraded}))
	out := b.String()
	for _, want := range []string{
		"tool t on linux (kernel Landlock ABI 3, policy needs 6)",
		"enforced    fs[1]",
		"degraded    net                        tcp (kernel Landlock ABI 3 < 4)",
		"degraded    net[0]                     host (kernel Landlock ABI 3 < 4; port only; host checked cooperatively)",
		"enforced    env ",
		"env: PATH\n",
		"would refuse: refusing to run",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
	// The manifest's net[0] already says hosts are cooperative; a manifest
	// that does not gets the launcher's own line.
	if strings.Contains(out, "net.host") {
		t.Errorf("net.host added although net[0] says it:\n%s", out)
	}
	p.Manifest.Clauses[3].How = "port only"
	b.Reset()
	must(t, WriteDryRun(&b, p, nil))
	if !strings.Contains(b.String(), "cooperative net.host") {
		t.Errorf("no cooperative net.host line for a manifest that does not say it:\n%s", b.String())
	}
	b.Reset()
	WarnDegraded(&b, p)
	if n := strings.Count(b.String(), "\n"); n != 1 {
		t.Errorf("--best-effort warning is %d lines, want 1: %q", n, b.String())
	}
}

// An artifact whose pin is valid but that records another workspace root
// is refused: exec runs only the artifact compiled for this workspace.
func TestPrepareRefusesForeignRoot(t *testing.T) {
	if platform.Host == platform.Windows {
		t.Skip("needs a POSIX sh on PATH")
	}
	ws := writeArtifact(t, testManifest())
	path := filepath.Join(ws, ".jp", "policy", artifact.FileName)
	b, err := os.ReadFile(path)
	must(t, err)
	forged := strings.Replace(string(b), `"root": "`+ws+`"`, `"root": "/elsewhere"`, 1)
	if forged == string(b) {
		t.Fatal("test artifact has no root to replace")
	}
	must(t, os.WriteFile(path, []byte(forged), 0o644))
	must(t, artifact.WritePin(os.Getenv("JP_USER_DATA_DIR"), ws, path, []byte(forged)))
	_, err = Prepare(&Options{Workspace: ws, Tool: "t", Argv: []string{"sh"}, Platform: platform.Linux, ABI: 7})
	var mm *MismatchError
	if !errors.As(err, &mm) || !strings.Contains(err.Error(), "compiled for the workspace /elsewhere") {
		t.Fatalf("got %v, want a MismatchError naming the other root", err)
	}
}

func TestProxyAddr(t *testing.T) {
	if ProxyAddr != "127.0.0.1:"+strconv.Itoa(ProxyPort) {
		t.Fatalf("ProxyAddr %s does not use ProxyPort %d", ProxyAddr, ProxyPort)
	}
}

// withoutTmp splits the private TMPDIR exec sets off env.
func withoutTmp(env []string) ([]string, string) {
	var out []string
	tmp := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "TMPDIR="); ok {
			tmp = v
			continue
		}
		out = append(out, kv)
	}
	return out, tmp
}
