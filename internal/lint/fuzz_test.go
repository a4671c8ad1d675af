package lint_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/lint"
	"github.com/jp-policy/jp-policy/internal/lint/report"
)

// FuzzLint: any workspace config either fails to load or lints without
// panicking, every finding names a catalogued rule (or none, for a loader
// note) and a position inside a file that was read, and every format
// renders it.
func FuzzLint(f *testing.F) {
	for _, seed := range []string{
		"[conversation.tools.t]\nsource = \"local\"\n[[conversation.tools.t.access.fs]]\npath = \"..\"\nexternal = true\nwrite = true\n",
		"[conversation.tools.t]\nsource = \"mcp.x\"\n[conversation.tools.t.access.fs]\nstrategy = \"replace\"\nvalue = []\n",
		"[[conversation.tools.t.access.net]]\nhost = \"ex\u00e4mple.com:1\"\nscheme = \"gopher\"\n[[conversation.tools.t.access.env]]\nname = \"A*B\"\n",
		"[[conversation.tools.t.access.config]]\npath = \"*.*\"\nwrite = true\n# jp-policy: ignore JP110 -- x\n[conversation.tools.t.access.commands.git]\nargs = [[\"**\", \"x\"]]\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		ws := t.TempDir()
		if err := os.MkdirAll(filepath.Join(ws, ".jp"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, ".jp", "config.toml"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		getenv := func(string) string { return "" }
		l, err := config.Load(config.Options{Workspace: ws, Cwd: ws, Getenv: getenv, Environ: func() []string { return nil }})
		if err != nil {
			return
		}
		ds := lint.Run(l, lint.Options{Getenv: getenv, Home: ws})
		for _, d := range ds {
			if _, ok := lint.Lookup(d.Rule); d.Rule != "" && !ok {
				t.Fatalf("finding with unknown rule %q", d.Rule)
			}
			if _, ok := l.Files[d.Pos.File]; d.Pos.File != "" && !ok {
				t.Fatalf("finding in a file that was not read: %v", d)
			}
		}
		o := report.Options{Base: ws, Files: l.Files}
		var b bytes.Buffer
		for _, render := range []func() error{
			func() error { return report.Text(&b, ds, o) },
			func() error { return report.JSON(&b, ds, o) },
			func() error { return report.SARIF(&b, ds, o) },
			func() error { return report.GitHub(&b, ds, o) },
		} {
			if err := render(); err != nil {
				t.Fatal(err)
			}
		}
	})
}
