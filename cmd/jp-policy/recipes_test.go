//go:build !windows

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The recipes users copy (CI workflow, pre-commit snippet, editor schema)
// must work as written; these tests run or check them.

// lintStepScript returns the `run: |` block of the workflow step with
// `id: lint`, dedented.
func lintStepScript(t *testing.T, workflow string) string {
	t.Helper()
	lines := strings.Split(workflow, "\n")
	inStep := false
	for i, l := range lines {
		if strings.TrimSpace(l) == "id: lint" {
			inStep = true
		}
		if inStep && strings.TrimSpace(l) == "run: |" {
			indent := len(l) - len(strings.TrimLeft(l, " ")) + 2
			var body []string
			for _, b := range lines[i+1:] {
				if strings.TrimSpace(b) != "" && len(b)-len(strings.TrimLeft(b, " ")) < indent {
					break
				}
				body = append(body, strings.TrimPrefix(b, strings.Repeat(" ", indent)))
			}
			return strings.Join(body, "\n")
		}
	}
	t.Fatal("the workflow has no `run: |` step with `id: lint`")
	return ""
}

// TestGitHubActionsRecipe: the workflow lints once, and what it records
// is what its later steps read. Its lint step runs here, as GitHub's bash
// would run it, on a clean and on a broken workspace.
func TestGitHubActionsRecipe(t *testing.T) {
	raw, err := os.ReadFile("../../examples/ci/github-actions.yml")
	if err != nil {
		t.Fatal(err)
	}
	wf := string(raw)
	if n := len(regexp.MustCompile(`(?m)^\s*(run:\s*)?jp-policy lint\b`).FindAllString(wf, -1)); n != 1 {
		t.Errorf("the workflow runs jp-policy lint %d times; once is enough", n)
	}
	if strings.Contains(wf, "GITHUB_ENV") {
		t.Errorf("the workflow writes $GITHUB_ENV; step outputs are what it reads")
	}
	written := regexp.MustCompile(`echo "(\w+)=[^"]*" >> "\$GITHUB_OUTPUT"`).FindAllStringSubmatch(wf, -1)
	if len(written) == 0 {
		t.Fatal("the lint step records no output")
	}
	for _, w := range written {
		if !strings.Contains(wf, "steps.lint.outputs."+w[1]) {
			t.Errorf("output %q is written and never read", w[1])
		}
	}
	for _, r := range regexp.MustCompile(`steps\.lint\.outputs\.(\w+)`).FindAllStringSubmatch(wf, -1) {
		if !strings.Contains(wf, `echo "`+r[1]+`=`) {
			t.Errorf("output %q is read and never written", r[1])
		}
	}

	script := lintStepScript(t, wf)
	bin := selfBinary(t)
	for _, tc := range []struct {
		name, config, want string
	}{
		{"clean", "[conversation.tools.t]\nsource = \"local\"\n", "status=0"},
		{"errors", "[conversation.tools.t]\nsource = \"local\"\n[[conversation.tools.t.access.fs]]\npath = \"/etc\"\nread = true\n", "status=1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			os.MkdirAll(filepath.Join(ws, ".jp"), 0o755)
			os.WriteFile(filepath.Join(ws, ".jp", ".id"), []byte("cirun\n"), 0o644)
			os.WriteFile(filepath.Join(ws, ".jp", "config.toml"), []byte(tc.config), 0o644)
			out := filepath.Join(t.TempDir(), "github_output")
			cmd := exec.Command("bash", "-e", "-c", script) // GitHub runs `bash -e {0}`
			cmd.Dir = ws
			home := t.TempDir()
			cmd.Env = append(os.Environ(), "GITHUB_OUTPUT="+out, "HOME="+home,
				"JP_USER_DATA_DIR="+filepath.Join(home, "data"), "JP_GLOBAL_CONFIG_DIR="+filepath.Join(home, "global"),
				"PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("the lint step failed instead of recording the status: %v\n%s", err, b)
			}
			got, _ := os.ReadFile(out)
			if strings.TrimSpace(string(got)) != tc.want {
				t.Errorf("GITHUB_OUTPUT = %q, want %q", got, tc.want)
			}
			sarif, _ := os.ReadFile(filepath.Join(ws, "jp-policy.sarif"))
			if !strings.Contains(string(sarif), `"version": "2.1.0"`) {
				t.Errorf("no SARIF written:\n%s", sarif)
			}
		})
	}
}

// TestPreCommitRev: every copy of the pre-commit snippet names the same
// rev, and it exists: main, or a tag of this repository.
func TestPreCommitRev(t *testing.T) {
	revRE := regexp.MustCompile(`(?m)^\s+rev: (\S+)`)
	var revs []string
	for _, f := range []string{"../../README.md", "../../docs/rules.md", "../../examples/ci/pre-commit-config.yaml"} {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m := revRE.FindAllStringSubmatch(string(raw), -1)
		if len(m) != 1 {
			t.Fatalf("%s: %d pre-commit revs, want 1", f, len(m))
		}
		revs = append(revs, m[0][1])
	}
	for _, r := range revs[1:] {
		if r != revs[0] {
			t.Fatalf("the snippets disagree on rev: %q", revs)
		}
	}
	if revs[0] == "main" {
		return
	}
	out, err := exec.Command("git", "-C", "../..", "tag", "--list", revs[0]).Output()
	if err != nil {
		t.Skipf("git cannot list tags here: %v", err)
	}
	if strings.TrimSpace(string(out)) != revs[0] {
		t.Errorf("rev %q is not a tag of this repository", revs[0])
	}
}

// TestSchemaFileName: README, docs and examples name one schema file.
func TestSchemaFileName(t *testing.T) {
	files, _ := filepath.Glob("../../docs/*.md")
	files = append(files, "../../README.md", "../../examples/editors/taplo.toml")
	nameRE := regexp.MustCompile(`[\w.-]+\.schema\.json`)
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range nameRE.FindAllString(string(raw), -1) {
			if n != "jp-policy.schema.json" {
				t.Errorf("%s names the editor schema %q; the other recipes use jp-policy.schema.json", f, n)
			}
		}
	}
}
