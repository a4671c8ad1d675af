//go:build !windows

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/enforcetest"
	"github.com/jp-policy/jp-policy/internal/platform"

	"github.com/jp-policy/jp-policy/internal/launcher"
)

// exitCommentRE finds the exit status a README command is documented to
// end with ("# exit 125").
var exitCommentRE = regexp.MustCompile(`\bexit (\d+)\b`)

// readmeStep is one command of a README block and what it must print.
type readmeStep struct {
	line     int
	args     []string // after "jp-policy"
	cd       string
	wantCode int // from a "# exit N" comment; 0 when there is none
	onlyOS   string
	want     []string // lines of expected output; "…" separates fragments
}

// readmeBlock returns the fenced block between <!-- test:NAME --> and
// <!-- /test:NAME --> in the README, as steps.
func readmeBlock(t *testing.T, name string) []readmeStep {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "<!-- test:"+name+" -->")
	end := strings.Index(text, "<!-- /test:"+name+" -->")
	if start < 0 || end < start {
		t.Fatalf("README has no <!-- test:%s --> block", name)
	}
	firstLine := strings.Count(text[:start], "\n") + 1
	var steps []readmeStep
	for i, raw := range strings.Split(text[start:end], "\n") {
		line := strings.TrimRight(raw, " ")
		cmd, isCmd := strings.CutPrefix(line, "$ ")
		if !isCmd && name == "quickstart" && (strings.HasPrefix(line, "go ") || strings.HasPrefix(line, "jp-policy ")) {
			cmd, isCmd = line, true
		}
		switch {
		case isCmd:
			s := readmeStep{line: firstLine + i}
			if c, comment, ok := strings.Cut(cmd, "#"); ok {
				cmd = c
				if m := exitCommentRE.FindStringSubmatch(comment); m != nil {
					s.wantCode, _ = strconv.Atoi(m[1])
				}
				if strings.Contains(comment, "(linux)") {
					s.onlyOS = "linux"
				}
			}
			fields := strings.Fields(cmd)
			switch {
			case len(fields) == 2 && fields[0] == "cd":
				s.cd = fields[1]
			case len(fields) >= 3 && fields[0] == "go" && fields[1] == "run" && fields[2] == "./cmd/jp-policy":
				s.args = fields[3:]
			case len(fields) >= 1 && fields[0] == "jp-policy":
				s.args = fields[1:]
			case len(fields) >= 2 && fields[0] == "go" && (fields[1] == "install" || fields[1] == "test"):
				continue // the test binary is the installed jp-policy
			default:
				t.Fatalf("README.md:%d: the walkthrough test cannot run %q", s.line, cmd)
			}
			steps = append(steps, s)
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "```") || strings.HasPrefix(line, "<!--"):
		case len(steps) > 0:
			steps[len(steps)-1].want = append(steps[len(steps)-1].want, line)
		}
	}
	if len(steps) == 0 {
		t.Fatalf("README block %s has no commands", name)
	}
	return steps
}

// runReadme runs steps in a copy of the repository's examples, through
// the real binary (this test binary started as jp-policy), and checks that
// each printed what the README shows.
func runReadme(t *testing.T, steps []readmeStep) {
	repo := t.TempDir()
	if out, err := exec.Command("cp", "-a", "../../examples", repo).CombinedOutput(); err != nil {
		t.Fatalf("copying examples: %v\n%s", err, out)
	}
	bin := selfBinary(t)
	home := t.TempDir()
	env := append(os.Environ(),
		"HOME="+home,
		"JP_USER_DATA_DIR="+filepath.Join(home, "data"),
		"JP_GLOBAL_CONFIG_DIR="+filepath.Join(home, "global"),
		"XDG_CONFIG_HOME="+filepath.Join(home, "xdg-config"),
		"XDG_DATA_HOME="+filepath.Join(home, "xdg-data"),
		"NO_COLOR=1",
		"PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
	)
	dir := repo
	for _, s := range steps {
		if s.cd != "" {
			dir = filepath.Join(dir, s.cd)
			continue
		}
		if s.onlyOS != "" && s.onlyOS != runtime.GOOS {
			continue
		}
		if len(s.args) > 0 && s.args[0] == "exec" && platform.Host == platform.Linux && launcher.KernelABI() < 6 && !strings.Contains(strings.Join(s.args, " "), "--dry-run") {
			if err := enforcetest.Missing("the kernel lacks Landlock ABI 6"); err != nil {
				t.Fatalf("README.md:%d: %v", s.line, err)
			}
			t.Logf("README.md:%d: skipped, the kernel lacks Landlock ABI 6 (exec refuses, as it must)", s.line)
			continue
		}
		cmd := exec.Command(bin, s.args...)
		cmd.Dir, cmd.Env = dir, env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("README.md:%d: %v", s.line, err)
		}
		if code := cmd.ProcessState.ExitCode(); code != s.wantCode {
			t.Errorf("README.md:%d: jp-policy %s: exit %d, want %d\n%s", s.line, strings.Join(s.args, " "), code, s.wantCode, out.String())
			continue
		}
		for _, w := range s.want {
			for frag := range strings.SplitSeq(w, "…") {
				if frag = strings.TrimSpace(frag); frag != "" && !strings.Contains(out.String(), frag) {
					t.Errorf("README.md:%d: jp-policy %s: output lacks %q\n%s", s.line, strings.Join(s.args, " "), frag, out.String())
				}
			}
		}
	}
}

// TestReadmeQuickstart runs the README's first command as written.
func TestReadmeQuickstart(t *testing.T) {
	runReadme(t, readmeBlock(t, "quickstart"))
}

// TestReadmeWalkthrough runs the README's walkthrough as written, so the
// README cannot rot.
func TestReadmeWalkthrough(t *testing.T) {
	runReadme(t, readmeBlock(t, "walkthrough"))
}
