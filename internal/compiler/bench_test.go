package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchWorkspace writes a workspace with n local tools of 10 fs rules
// each (a root grant, read-only and read-write subtrees, a narrowed
// secret), plus net and env rules, as a realistic large config.
func benchWorkspace(tb testing.TB, n int) string {
	tb.Helper()
	root, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	for _, d := range []string{".jp", "src/a", "src/b", "docs", "tests", "build/out", "vendor"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, ".jp", ".id"), []byte("bench"), 0o644); err != nil {
		tb.Fatal(err)
	}
	var b strings.Builder
	for i := range n {
		t := fmt.Sprintf("conversation.tools.tool_%05d", i)
		fmt.Fprintf(&b, "[%s]\nsource = \"local\"\ncommand = \"true\"\n\n", t)
		for _, r := range []string{
			`path = "."` + "\nread = true",
			`path = "src"` + "\nread = true\nwrite = true",
			`path = "src/a"` + "\nread = true",
			`path = "src/b"` + "\nread = true\nwrite = true\ndelete = false",
			`path = "docs"` + "\nread = true\nwrite = true",
			`path = "tests"` + "\nread = true\nexecute = true",
			`path = "build/out"` + "\nread = true\nwrite = true",
			`path = "vendor"` + "\nread = true",
			`path = ".env"`,
			`path = "new/dir"` + "\ncreate = true",
		} {
			fmt.Fprintf(&b, "[[%s.access.fs]]\n%s\n\n", t, r)
		}
		fmt.Fprintf(&b, "[[%s.access.net]]\nhost = \"api.example.com\"\nscheme = \"https\"\nallow = true\n\n", t)
		fmt.Fprintf(&b, "[[%s.access.env]]\nname = \"TOKEN_%d\"\nread = true\n\n", t, i)
	}
	if err := os.WriteFile(filepath.Join(root, ".jp", "config.toml"), []byte(b.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	return root
}

func benchOptions(root string) Options {
	env := map[string]string{"JP_USER_DATA_DIR": filepath.Join(root, ".data"), "JP_GLOBAL_CONFIG_DIR": filepath.Join(root, ".global"), "HOME": root}
	return Options{Config: configOptionsFor(root, env)}
}

// BenchmarkBuild compiles n tools with 10 fs rules each, in memory (load,
// lint, bind, emit for three platforms, encode). Compare the ns/op of the
// sizes to see how time grows with the number of tools.
func BenchmarkBuild(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			if n > 1000 && testing.Short() {
				b.Skip("large size skipped in -short")
			}
			root := benchWorkspace(b, n)
			opts := benchOptions(root)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := Build(opts)
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Artifact.Tools) != n {
					b.Fatalf("compiled %d tools, want %d", len(res.Artifact.Tools), n)
				}
			}
		})
	}
}
