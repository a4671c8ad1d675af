//go:build linux

package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// ptyRun runs cmd on a pseudo-terminal, waits until the terminal shows
// waitFor, types answer and returns everything the terminal showed.
func ptyRun(t *testing.T, cmd *exec.Cmd, waitFor, answer string) string {
	t.Helper()
	f, err := pty.Start(cmd)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer f.Close()
	var seen bytes.Buffer
	done := make(chan struct{})
	prompted := make(chan struct{}, 1)
	go func() {
		defer close(done)
		r := bufio.NewReader(f)
		buf := make([]byte, 1024)
		for {
			n, err := r.Read(buf)
			seen.Write(buf[:n])
			if strings.Contains(seen.String(), waitFor) {
				select {
				case prompted <- struct{}{}:
				default:
				}
			}
			if err != nil {
				return
			}
		}
	}()
	select {
	case <-prompted:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("no prompt %q; terminal showed:\n%s", waitFor, seen.String())
	}
	if _, err := io.WriteString(f, answer+"\r"); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	<-done
	return seen.String()
}

// TestWideningPrompt drives compile's consent prompt for a widening
// through a real pseudo-terminal: decline (nothing written), accept
// (written and remembered), then compile again without a prompt.
func TestWideningPrompt(t *testing.T) {
	bin := selfBinary(t)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "ws")
	os.MkdirAll(filepath.Join(root, ".jp"), 0o755)
	env := append(os.Environ(), "JP_GLOBAL_CONFIG_DIR="+filepath.Join(base, "g"), "JP_USER_DATA_DIR="+filepath.Join(base, "data"), "NO_COLOR=1")
	cfg := filepath.Join(root, ".jp", "config.toml")
	narrow := "[conversation.tools.t]\nsource = \"local\"\ncommand = \"t\"\n\n[[conversation.tools.t.access.fs]]\npath = \"src\"\nread = true\nwrite = true\n"
	os.WriteFile(cfg, []byte(narrow), 0o644)
	compile := func(args ...string) *exec.Cmd {
		cmd := exec.Command(bin, append([]string{"compile", "--workspace", root}, args...)...)
		cmd.Env = env
		return cmd
	}
	if out, err := compile("--no-input").CombinedOutput(); err != nil {
		t.Fatalf("first compile: %v\n%s", err, out)
	}
	pinned, _ := os.ReadFile(filepath.Join(root, ".jp", "policy", "policy.json"))

	os.WriteFile(cfg, []byte(narrow+"\n[[conversation.tools.t.access.fs]]\npath = \".\"\nread = true\nwrite = true\n"), 0o644)
	out := ptyRun(t, compile(), "Accept the widened grants? [y/N]", "n")
	for _, want := range []string{"The config now grants more than the policy you accepted:", "t: fs: read+write on `src` → read+write on `src`; read+write on `.`", "widened: now also read, write on `.` (including .jp/", "not compiled: you declined"} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal lacks %q:\n%s", want, out)
		}
	}
	if now, _ := os.ReadFile(filepath.Join(root, ".jp", "policy", "policy.json")); !bytes.Equal(now, pinned) {
		t.Fatal("a declined widening replaced the artifact")
	}

	out = ptyRun(t, compile(), "Accept the widened grants? [y/N]", "y")
	if !strings.Contains(out, "compiled 1 local tool(s)") {
		t.Fatalf("accepted compile did not write:\n%s", out)
	}
	// The accepted grants are remembered: the same grants compile again
	// on a terminal without a prompt (the command would hang otherwise).
	cmd := compile()
	f, err := pty.Start(cmd)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer f.Close()
	var seen bytes.Buffer
	go io.Copy(&seen, f)
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		if err != nil {
			t.Fatalf("repeated compile failed: %v", err)
		}
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the repeated compile of accepted grants asked again")
	}
}
