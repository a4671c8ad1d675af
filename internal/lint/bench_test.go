package lint_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/lint"
	"github.com/jp-policy/jp-policy/internal/testfixture"
)

func noEnv(string) string { return "" }

// BenchmarkLoadUpstream and BenchmarkRunUpstream split `jp-policy lint`
// on JP's own workspace into loading and checking.
func BenchmarkLoadUpstream(b *testing.B) {
	ws := testfixture.Upstream(b)
	for i := 0; i < b.N; i++ {
		if _, err := config.Load(config.Options{Workspace: ws, Cwd: ws, Getenv: noEnv, Environ: func() []string { return nil }}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRunUpstream(b *testing.B) {
	ws := testfixture.Upstream(b)
	l, err := config.Load(config.Options{Workspace: ws, Cwd: ws, Getenv: noEnv, Environ: func() []string { return nil }})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		lint.Run(l, lint.Options{Getenv: noEnv})
	}
}

// BenchmarkRunRules checks a workspace where every rule has work: 40
// local tools with fs, net, env and config rules, 200 files, a .env file.
func BenchmarkRunRules(b *testing.B) {
	ws := b.TempDir()
	var cfg strings.Builder
	for i := range 40 {
		fmt.Fprintf(&cfg, `[conversation.tools.t%d]
source = "local"
[[conversation.tools.t%d.access.fs]]
path = "."
read = true
[[conversation.tools.t%d.access.fs]]
path = "src"
read = true
write = true
[[conversation.tools.t%d.access.net]]
host = "api.github.com"
[[conversation.tools.t%d.access.env]]
name = "GITHUB_*"
[[conversation.tools.t%d.access.config]]
path = "conversation.tools.*.run"
read = true
`, i, i, i, i, i, i)
	}
	files := map[string]string{".jp/config.toml": cfg.String(), ".env": "X=1\n"}
	for i := range 200 {
		files[fmt.Sprintf("src/f%d.rs", i)] = "//\n"
	}
	for name, data := range files {
		p := filepath.Join(ws, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	l, err := config.Load(config.Options{Workspace: ws, Cwd: ws, Getenv: noEnv, Environ: func() []string { return nil }})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if ds := lint.Run(l, lint.Options{Getenv: noEnv}); len(ds) == 0 {
			b.Fatal("expected findings (.env is readable)")
		}
	}
}
