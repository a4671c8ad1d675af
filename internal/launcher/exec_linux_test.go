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

	"github.com/jp-policy/jp-policy/internal/enforcetest"
	"github.com/jp-policy/jp-policy/internal/plan/landlock"
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
	js, err := json.Marshal(Plan{Manifest: m, Path: path, Argv: argv, Env: []string{"PATH=/usr/bin:/bin"}, Masks: true})
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
		enforcetest.Skipf(t, "needs Landlock ABI 6, kernel has %d", KernelABI())
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

// TestMasks: with the privilege to create a mount namespace, a narrowed
// path is hidden exactly and its ancestors keep their full rights (a new
// file directly in the workspace is writable, which the split alone
// cannot allow), while the caller's namespace is untouched.
func TestMasks(t *testing.T) {
	if KernelABI() < 6 {
		enforcetest.Skipf(t, "needs Landlock ABI 6, kernel has %d", KernelABI())
	}
	if !canMask() {
		t.Skip("needs CAP_SYS_ADMIN")
	}
	ws := t.TempDir()
	env := filepath.Join(ws, ".env")
	must(t, os.WriteFile(env, []byte("SECRET=1\n"), 0o644))
	must(t, os.Mkdir(filepath.Join(ws, "sub"), 0o755))
	rw := []string{landlock.ReadFile, landlock.ReadDir, landlock.WriteFile, landlock.Truncate, landlock.MakeReg,
		landlock.MakeDir, landlock.RemoveFile, landlock.RemoveDir, landlock.Refer}
	m := &landlock.Manifest{
		Version: landlock.FormatVersion,
		// The split: nothing on ws itself that could reach .env.
		FS: []landlock.PathRule{
			{Path: ws, Access: []string{landlock.ReadDir}, Clause: "fs[0]"},
			{Path: filepath.Join(ws, "sub"), Access: rw, Clause: "fs[0]", Optional: true},
		},
		Masks: []string{env},
		// As the emitter writes it, with the masked file among the entries.
		MaskedFS: []landlock.PathRule{{Path: ws, Access: rw, Clause: "fs[0]"}, {Path: env, Access: []string{landlock.WriteFile}, Clause: "fs[0]"}},
		Baseline: []landlock.PathRule{
			{Path: "/usr", Access: []string{landlock.ReadFile, landlock.ReadDir, landlock.Execute}, Clause: "baseline.runtime"},
			{Path: "/etc/ld.so.cache", Access: []string{landlock.ReadFile}, Clause: "baseline.loader", Optional: true},
			{Path: "/dev/null", Access: []string{landlock.ReadFile, landlock.WriteFile}, Clause: "baseline.dev"},
		},
		Net:   landlock.Net{Restrict: true},
		Scope: []string{"signal"},
	}
	tests := []struct {
		name    string
		script  string
		wantOK  bool
		wantOut string
	}{
		{"new file directly in the workspace", `echo new > "$1/new.txt" && cat "$1/new.txt"`, true, "new"},
		{"delete beside the mask", `rm "$1/new.txt"`, true, ""},
		{"read the masked file", `cat "$1/.env"`, false, "Permission denied"},
		{"write the masked file", `echo x >> "$1/.env"`, false, ""},
		{"delete the masked file", `rm -f "$1/.env"`, false, "busy"},
		{"rename the masked file", `mv "$1/.env" "$1/sub/"`, false, "busy"},
		{"take the mask off", `umount "$1/.env"`, false, "Permission denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runSandboxed(t, m, "sh", "-c", tt.script, "sh", ws)
			if strings.Contains(out, "helper:") {
				t.Fatalf("the launcher failed:\n%s", out)
			}
			if (err == nil) != tt.wantOK || !strings.Contains(out, tt.wantOut) {
				t.Fatalf("err %v, output:\n%s\nwant ok=%v and %q", err, out, tt.wantOK, tt.wantOut)
			}
		})
	}
	// A mask that cannot be applied (its path vanished) leaves the split:
	// the run goes ahead, .env stays out of reach, the workspace root
	// stays closed to new files.
	m.Masks = append(m.Masks, filepath.Join(ws, "gone"))
	out, err := runSandboxed(t, m, "sh", "-c", `cat "$1/.env"; echo x > "$1/new2.txt"`, "sh", ws)
	if err == nil || strings.Contains(out, "SECRET") || !strings.Contains(out, "new2.txt: Permission denied") {
		t.Fatalf("fallback to the split: err %v, output:\n%s", err, out)
	}

	b, err := os.ReadFile(env)
	if err != nil || string(b) != "SECRET=1\n" {
		t.Fatalf(".env changed or hidden outside the sandbox: %q, %v", b, err)
	}
	mi, _ := os.ReadFile("/proc/self/mountinfo")
	if strings.Contains(string(mi), env) {
		t.Fatal("a mask leaked into the caller's mount namespace")
	}
}
