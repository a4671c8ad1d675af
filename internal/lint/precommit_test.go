package lint

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/jpdirs"
)

// TestPreCommitHook keeps .pre-commit-hooks.yaml what docs/rules.md says
// it is, and checks its files pattern against JP's config file names.
func TestPreCommitHook(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	hook := string(raw)
	for _, want := range []string{"- id: jp-policy-lint\n", "  entry: jp-policy lint\n", "  language: golang\n", "  pass_filenames: false\n"} {
		if !strings.Contains(hook, want) {
			t.Errorf(".pre-commit-hooks.yaml lacks %q", want)
		}
	}
	m := regexp.MustCompile(`(?m)^  files: (.+)$`).FindStringSubmatch(hook)
	if m == nil {
		t.Fatal(".pre-commit-hooks.yaml has no files pattern")
	}
	re := regexp.MustCompile(m[1]) // pre-commit uses Python re.search; this pattern is valid in both
	for path, want := range map[string]bool{
		".jp/config.toml":                true,
		"sub/.jp/config/personas/a.toml": true,
		".jp/mcp/tools/x.json":           true,
		".jp.toml":                       true,
		"crates/x/.jp.toml":              true,
		"x.jp.toml":                      false,
		".jpx/config.toml":               false,
		"src/main.rs":                    false,
		".jp/README.md":                  false,
	} {
		if got := re.MatchString(path); got != want {
			t.Errorf("files pattern on %q = %v, want %v", path, got, want)
		}
	}
	// Every layer name jp-policy reads (or reports as unsupported), so a
	// broken .jp.json is linted, not "Skipped".
	for _, ext := range jpdirs.Extensions {
		for _, path := range []string{".jp" + ext, "sub/.jp" + ext, ".jp/config" + ext} {
			if !re.MatchString(path) {
				t.Errorf("files pattern misses the layer %q", path)
			}
		}
	}
}
