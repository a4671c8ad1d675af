//go:build linux

package launcher

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/emit/landlock"
)

// helperEnv makes the test binary act as the launcher: it decodes a Plan
// from the variable and Execs it.
const helperEnv = "JP_LAUNCHER_TEST_PLAN"

func TestMain(m *testing.M) {
	if plan := os.Getenv(helperEnv); plan != "" {
		os.Exit(helperExec(plan))
	}
	os.Exit(m.Run())
}

func helperExec(js string) int {
	var p Plan
	if err := json.Unmarshal([]byte(js), &p); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 98
	}
	p.ABI = KernelABI()
	// The point of the test: the launcher is multi-threaded when it
	// restricts one thread and execs from it.
	fmt.Fprintf(os.Stderr, "launcher-threads=%d\n", threads())
	if err := Exec(&p); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
	}
	return 99
}

func threads() int {
	b, _ := os.ReadFile("/proc/self/status")
	m := regexp.MustCompile(`(?m)^Threads:\s+(\d+)`).FindSubmatch(b)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// runSandboxed runs argv under m through a re-executed test binary and
// returns its combined output and error.
func runSandboxed(t *testing.T, m *landlock.Manifest, argv ...string) (string, error) {
	t.Helper()
	path, err := exec.LookPath(argv[0])
	if err != nil {
		t.Skipf("%s not found", argv[0])
	}
	js, err := json.Marshal(Plan{Manifest: m, Path: path, Argv: argv, Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+string(js))
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestExecRestrictsChild proves the single-thread approach: Landlock and
// no_new_privs set on the locked exec thread of a multi-threaded launcher
// bind the program it becomes.
func TestExecRestrictsChild(t *testing.T) {
	if KernelABI() < 6 {
		t.Skipf("needs Landlock ABI 6, kernel has %d", KernelABI())
	}
	allowed, denied := t.TempDir(), t.TempDir()
	must(t, os.WriteFile(filepath.Join(allowed, "a.txt"), []byte("allowed\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(denied, "b.txt"), []byte("denied\n"), 0o644))
	m := &landlock.Manifest{
		Version: landlock.FormatVersion,
		FS: []landlock.PathRule{
			{Path: allowed, Access: []string{landlock.ReadFile, landlock.ReadDir}, Clause: "fs[0]"},
		},
		Baseline: []landlock.PathRule{
			{Path: "/usr", Access: []string{landlock.ReadFile, landlock.ReadDir, landlock.Execute}, Clause: "baseline.runtime"},
			{Path: "/etc/ld.so.cache", Access: []string{landlock.ReadFile}, Clause: "baseline.loader", Optional: true},
			{Path: "/proc/self", Access: []string{landlock.ReadFile, landlock.ReadDir}, Clause: "baseline.proc", Optional: true},
			{Path: "/dev/null", Access: []string{landlock.ReadFile, landlock.WriteFile}, Clause: "baseline.dev"},
		},
		Net:   landlock.Net{Restrict: true},
		Scope: []string{"signal", "abstract_unix_socket"},
	}
	tests := []struct {
		name    string
		argv    []string
		wantOK  bool
		wantOut string
	}{
		{"granted file is readable", []string{"cat", filepath.Join(allowed, "a.txt")}, true, "allowed"},
		{"other file is denied", []string{"cat", filepath.Join(denied, "b.txt")}, false, "Permission denied"},
		{"writing the granted dir is denied", []string{"touch", filepath.Join(allowed, "new")}, false, "Permission denied"},
		{"no_new_privs is set", []string{"grep", "NoNewPrivs", "/proc/self/status"}, true, "NoNewPrivs:\t1"},
		{"the process is in a Landlock domain", []string{"sh", "-c", "kill -0 $PPID"}, false, "not permitted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runSandboxed(t, m, tt.argv...)
			if (err == nil) != tt.wantOK || !strings.Contains(out, tt.wantOut) {
				t.Fatalf("err %v, output:\n%s\nwant ok=%v and %q", err, out, tt.wantOK, tt.wantOut)
			}
			if strings.Contains(out, "helper:") {
				t.Fatalf("the launcher failed, not the sandboxed program:\n%s", out)
			}
			if n := regexp.MustCompile(`launcher-threads=(\d+)`).FindStringSubmatch(out); n == nil || n[1] == "1" {
				t.Errorf("launcher was not multi-threaded at exec (%v); the test proves nothing", n)
			}
		})
	}
}

func TestBuildRulesetMasksByKind(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	must(t, os.WriteFile(file, nil, 0o644))
	m := &landlock.Manifest{FS: []landlock.PathRule{
		{Path: dir, Access: []string{landlock.ReadDir, landlock.MakeReg, landlock.Refer}, Clause: "fs[0]"},
		{Path: file, Access: []string{landlock.ReadFile, landlock.RemoveFile, landlock.Truncate}, Clause: "fs[1]"},
		{Path: filepath.Join(dir, "gone"), Access: []string{landlock.ReadFile}, Clause: "fs[2]", Optional: true},
	}}
	rs, err := buildRuleset(m, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.close()
	if len(rs.paths) != 2 {
		t.Fatalf("%d rules, want 2 (the optional missing path skipped)", len(rs.paths))
	}
	if rs.paths[0].allowed != fsReadDir|fsMakeReg {
		t.Errorf("dir rule %#x: ABI 1 must drop refer", rs.paths[0].allowed)
	}
	if rs.paths[1].allowed != fsReadFile {
		t.Errorf("file rule %#x: directory rights and truncate (ABI 3) must go", rs.paths[1].allowed)
	}
	m.FS[2].Optional = false
	if _, err := buildRuleset(m, 7); err == nil || !strings.Contains(err.Error(), "fs[2]") {
		t.Errorf("a missing required path must be refused, got %v", err)
	}
}
