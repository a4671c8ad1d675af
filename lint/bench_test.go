package lint_test

import (
	"path/filepath"
	"testing"

	"github.com/jp-policy/jp-policy/config"
	"github.com/jp-policy/jp-policy/lint"
)

func noEnv(string) string { return "" }

// BenchmarkLoadUpstream and BenchmarkRunUpstream split `jp-policy lint`
// on JP's own workspace into loading and checking.
func BenchmarkLoadUpstream(b *testing.B) {
	ws, _ := filepath.Abs(filepath.Join("..", "..", "shared", "fixtures", "jp-upstream"))
	for i := 0; i < b.N; i++ {
		if _, err := config.Load(config.Options{Workspace: ws, Cwd: ws, Getenv: noEnv, Environ: func() []string { return nil }}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRunUpstream(b *testing.B) {
	ws, _ := filepath.Abs(filepath.Join("..", "..", "shared", "fixtures", "jp-upstream"))
	l, err := config.Load(config.Options{Workspace: ws, Cwd: ws, Getenv: noEnv, Environ: func() []string { return nil }})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		lint.Run(l, lint.Options{Getenv: noEnv})
	}
}
