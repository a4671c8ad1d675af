//go:build linux

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// tofuWorkspace makes a workspace whose fs_read_file reads `fork`, an
// external symlink, and returns the root, the target and the approvals
// file.
func tofuWorkspace(t *testing.T) (root, target, approvalsFile string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root = filepath.Join(base, "ws")
	target = filepath.Join(base, "outside", "fork")
	for _, d := range []string{filepath.Join(root, ".jp"), target, filepath.Join(base, "other")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := `[conversation.tools.fs_read_file]
source = "local"
command = "true"

[[conversation.tools.fs_read_file.access.fs]]
path = "."
read = true

[[conversation.tools.fs_read_file.access.fs]]
path = "fork"
external = true
read = true
`
	if err := os.WriteFile(filepath.Join(root, ".jp", "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(root, "fork")); err != nil {
		t.Fatal(err)
	}
	return root, target, filepath.Join(base, "approvals.json")
}

// runOnPTY runs the binary on a pseudo-terminal, waits for the prompt,
// types answer and returns everything the terminal showed.
func runOnPTY(t *testing.T, bin, root, approvalsFile, waitFor, answer string) string {
	t.Helper()
	cmd := exec.Command(bin, "compile", "--workspace", root, "--approvals", approvalsFile)
	cmd.Env = append(os.Environ(), "JP_GLOBAL_CONFIG_DIR="+t.TempDir(), "JP_USER_DATA_DIR="+t.TempDir(), "NO_COLOR=1")
	return ptyRun(t, cmd, waitFor, answer)
}

func approvedTarget(t *testing.T, approvalsFile string) string {
	t.Helper()
	b, err := os.ReadFile(approvalsFile)
	if err != nil {
		return ""
	}
	var s struct {
		Mounts []struct {
			RulePath        string `json:"rule_path"`
			CanonicalTarget string `json:"canonical_target"`
		} `json:"mounts"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("approvals.json: %v", err)
	}
	for _, m := range s.Mounts {
		if m.RulePath == "fork" {
			return m.CanonicalTarget
		}
	}
	return ""
}

// TestTOFUPrompt drives compile's trust-on-first-use prompt through a real
// pseudo-terminal: reject, approve, then retarget.
func TestTOFUPrompt(t *testing.T) {
	bin := selfBinary(t)
	root, target, approvalsFile := tofuWorkspace(t)

	// Reject: nothing is recorded and the rule is dropped.
	out := runOnPTY(t, bin, root, approvalsFile, "Approve? [y/N]", "n")
	for _, want := range []string{"Approve this target binding?", "fork → " + target, "fs_read_file:", "read"} {
		if !strings.Contains(out, want) {
			t.Errorf("prompt lacks %q:\n%s", want, out)
		}
	}
	if got := approvedTarget(t, approvalsFile); got != "" {
		t.Fatalf("rejected target was recorded: %s", got)
	}
	if !strings.Contains(out, "dropped") {
		t.Errorf("no drop warning after rejecting:\n%s", out)
	}

	// Approve: recorded, and the compiled rule carries the target.
	out = runOnPTY(t, bin, root, approvalsFile, "Approve? [y/N]", "y")
	if got := approvedTarget(t, approvalsFile); got != target {
		t.Fatalf("approved target = %q, want %q\n%s", got, target, out)
	}
	art, err := os.ReadFile(filepath.Join(root, ".jp", "policy", "policy.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(art), `"approved_target":"`+target+`"`) {
		t.Errorf("artifact lacks the approved target")
	}

	// Retarget: the prompt shows was/now; rejecting keeps the old approval.
	other := filepath.Join(filepath.Dir(filepath.Dir(target)), "other")
	link := filepath.Join(root, "fork")
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, link); err != nil {
		t.Fatal(err)
	}
	out = runOnPTY(t, bin, root, approvalsFile, "Allow new target? [y/N]", "n")
	for _, want := range []string{"retargeted", "was: " + target, "now: " + other} {
		if !strings.Contains(out, want) {
			t.Errorf("retarget prompt lacks %q:\n%s", want, out)
		}
	}
	if got := approvedTarget(t, approvalsFile); got != target {
		t.Fatalf("after rejecting the retarget, approval = %q, want the old %q", got, target)
	}
	out = runOnPTY(t, bin, root, approvalsFile, "Allow new target? [y/N]", "yes")
	if got := approvedTarget(t, approvalsFile); got != other {
		t.Fatalf("after approving the retarget, approval = %q, want %q\n%s", got, other, out)
	}
}
