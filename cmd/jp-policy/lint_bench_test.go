package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/testfixture"
)

// BenchmarkLint20Tools is `jp-policy lint` in process on bench/lint.sh's
// 20-tool workspace (fs, net, env and config rules per tool, 200 files, a
// .env file): load, rules, text report. Run it with -benchmem: a short
// lint never collects garbage, so every allocated byte is fresh memory
// the process touches for the first time (docs/lint.md).
func BenchmarkLint20Tools(b *testing.B) {
	ws := b.TempDir()
	var cfg strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&cfg, `[conversation.tools.tool_%[1]d]
source = "local"
run = "ask"

[[conversation.tools.tool_%[1]d.access.fs]]
path = "."
read = true

[[conversation.tools.tool_%[1]d.access.fs]]
path = "src"
read = true
write = true

[[conversation.tools.tool_%[1]d.access.net]]
host = "api.github.com"
scheme = "https"
allow = true

[[conversation.tools.tool_%[1]d.access.env]]
name = "GITHUB_*"
read = true

[[conversation.tools.tool_%[1]d.access.config]]
path = "conversation.tools.*.run"
read = true

`, i)
	}
	files := map[string]string{".jp/config.toml": cfg.String(), ".env": "X=1\n", ".git/HEAD": ""}
	for i := 1; i <= 200; i++ {
		files[fmt.Sprintf("src/f%d.rs", i)] = fmt.Sprintf("// %d\n", i)
	}
	for name, data := range files {
		testfixture.WriteFile(b, filepath.Join(ws, filepath.FromSlash(name)), data)
	}
	home := b.TempDir()
	b.Setenv("HOME", home)
	b.Setenv("JP_GLOBAL_CONFIG_DIR", filepath.Join(home, "config"))
	b.Setenv("JP_USER_DATA_DIR", filepath.Join(home, "data"))
	args := []string{"lint", "--workspace", ws}
	if code := run(args, nil, io.Discard, io.Discard); code != exitOK {
		b.Fatalf("lint exited %d", code)
	}
	b.ReportAllocs()
	for b.Loop() {
		run(args, nil, io.Discard, io.Discard)
	}
}
