package lint_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/jp-policy/jp-policy/internal/approvals"
	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/lint"
	"github.com/jp-policy/jp-policy/internal/lint/report"
)

var update = flag.Bool("update", false, "rewrite the want section of lint/testdata/*.txtar")

// A golden case is a txtar archive: files go into a fresh workspace,
// except `outside/...` (a directory outside it) and `home/...` (the
// home directory). Special members:
//
//	symlinks        lines of `LINK -> TARGET`, LINK workspace-relative,
//	                TARGET may use $OUTSIDE, $HOME and $WS
//	approvals.json  an approvals store ($OUTSIDE etc. expanded)
//	want            the expected text output ($WS, $OUTSIDE for paths)
type golden struct {
	ws, outside, home string
	approvals         lint.Approvals
	loaded            *config.Loaded
	loadErr           error
}

func setup(t *testing.T, ar *txtar.Archive) *golden {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	g := &golden{ws: filepath.Join(tmp, "ws"), outside: filepath.Join(tmp, "outside"), home: filepath.Join(tmp, "home")}
	for _, d := range []string{g.ws, g.outside, g.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	expand := func(s string) string {
		return strings.NewReplacer("$OUTSIDE", g.outside, "$HOME", g.home, "$WS", g.ws).Replace(s)
	}
	var links []string
	for _, f := range ar.Files {
		switch {
		case f.Name == "want":
			continue
		case f.Name == "symlinks":
			links = strings.Split(strings.TrimSpace(string(f.Data)), "\n")
			continue
		case f.Name == "approvals.json":
			p := filepath.Join(tmp, "approvals.json")
			write(t, p, expand(string(f.Data)))
			s, _, err := approvals.Load(p)
			if err != nil {
				t.Fatal(err)
			}
			g.approvals = s
			continue
		}
		dst := filepath.Join(g.ws, filepath.FromSlash(f.Name))
		if rest, ok := strings.CutPrefix(f.Name, "outside/"); ok {
			dst = filepath.Join(g.outside, filepath.FromSlash(rest))
		} else if rest, ok := strings.CutPrefix(f.Name, "home/"); ok {
			dst = filepath.Join(g.home, filepath.FromSlash(rest))
		}
		write(t, dst, string(f.Data))
	}
	for _, ln := range links {
		link, target, ok := strings.Cut(ln, " -> ")
		if !ok {
			t.Fatalf("bad symlinks line %q", ln)
		}
		p := filepath.Join(g.ws, filepath.FromSlash(strings.TrimSpace(link)))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(expand(strings.TrimSpace(target)), p); err != nil {
			t.Fatal(err)
		}
	}
	g.loaded, g.loadErr = config.Load(config.Options{
		Workspace: g.ws, Cwd: g.ws, Getenv: g.getenv, Environ: func() []string { return nil },
	})
	return g
}

func (g *golden) getenv(k string) string {
	switch k {
	case "HOME":
		return g.home
	case "JP_GLOBAL_CONFIG_DIR":
		return filepath.Join(g.home, ".config", "jp")
	case "JP_USER_DATA_DIR":
		return filepath.Join(g.home, ".local", "share", "jp")
	}
	return ""
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (g *golden) run(t *testing.T) ([]diag.Diagnostic, string) {
	t.Helper()
	var ds []diag.Diagnostic
	var files map[string][]byte
	if g.loaded != nil {
		files = g.loaded.Files
	}
	if g.loadErr != nil {
		list, ok := g.loadErr.(diag.List)
		if !ok {
			t.Fatalf("load: %v", g.loadErr)
		}
		ds = lint.WithHelp(list)
	} else {
		ds = lint.Run(g.loaded, lint.Options{Approvals: g.approvals, Home: g.home, Getenv: g.getenv})
	}
	var buf bytes.Buffer
	if err := report.Text(&buf, ds, report.Options{Base: g.ws, Home: g.home, Files: files}); err != nil {
		t.Fatal(err)
	}
	out := strings.NewReplacer(g.ws, "$WS", g.outside, "$OUTSIDE").Replace(buf.String())
	return ds, out
}

func goldenFiles(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	sort.Strings(files)
	return files
}

// TestGolden runs every case and compares the text output.
func TestGolden(t *testing.T) {
	for _, file := range goldenFiles(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			_, got := setup(t, ar).run(t)
			idx := -1
			for i, f := range ar.Files {
				if f.Name == "want" {
					idx = i
				}
			}
			if *update {
				if idx < 0 {
					ar.Files = append(ar.Files, txtar.File{Name: "want"})
					idx = len(ar.Files) - 1
				}
				ar.Files[idx].Data = []byte(got)
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if idx < 0 {
				t.Fatalf("%s has no want section (run with -update)", file)
			}
			if want := string(ar.Files[idx].Data); got != want {
				t.Errorf("output differs\n--- got\n%s--- want\n%s", got, want)
			}
		})
	}
}

// TestEveryRuleHasAGolden: the case named after a rule must report that
// rule, and every rule lint itself checks has such a case.
func TestEveryRuleHasAGolden(t *testing.T) {
	have := map[string]bool{}
	for _, file := range goldenFiles(t) {
		base := strings.TrimSuffix(filepath.Base(file), ".txtar")
		id, _, _ := strings.Cut(base, "_")
		if _, ok := lint.Lookup(id); !ok {
			continue
		}
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		ds, _ := setup(t, ar).run(t)
		fired := false
		for _, d := range ds {
			if d.Rule == id {
				fired = true
			}
			if d.Help == "" {
				t.Errorf("%s: a %s finding has no help: %s", file, d.Rule, d)
			}
		}
		if !fired {
			t.Errorf("%s: rule %s does not fire", file, id)
		}
		have[id] = true
	}
	for _, r := range lint.Rules() {
		if !have[r.ID] && !r.Loader && r.Origin == "" {
			t.Errorf("rule %s has no golden case testdata/%s.txtar", r.ID, r.ID)
		}
	}
}

// TestEveryFindingHasHelp: every rule of the catalogue, the loader's
// included, leaves a finding with a help line, written by the rule or
// taken from its catalogue fix.
func TestEveryFindingHasHelp(t *testing.T) {
	for _, r := range lint.Rules() {
		ds := lint.WithHelp([]diag.Diagnostic{{Rule: r.ID, Message: "m"}})
		if ds[0].Help == "" {
			t.Errorf("%s: no help", r.ID)
		}
	}
}
