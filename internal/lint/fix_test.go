package lint_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/lint"
)

// fixOnce lints the workspace's .jp/config.toml as input, applies every
// fix, and returns the new text (input unchanged when nothing applied)
// and the findings of the run.
func fixOnce(t *testing.T, input []byte) ([]byte, []diag.Diagnostic) {
	t.Helper()
	g := setup(t, &txtar.Archive{Files: []txtar.File{{Name: ".jp/config.toml", Data: input}, {Name: "src/x"}, {Name: "lib/x"}}})
	if g.loadErr != nil {
		t.Fatalf("load: %v\n%s", g.loadErr, input)
	}
	ds := lint.Run(g.loaded, lint.Options{Approvals: g.approvals, Home: g.home, Getenv: g.getenv})
	out, _ := lint.ApplyFixes(g.loaded.Files, ds)
	if b, ok := out[filepath.Join(g.ws, ".jp", "config.toml")]; ok {
		return b, ds
	}
	return input, ds
}

// TestFixGolden: testdata/fix/CASE/input.toml fixed is want.toml, byte for
// byte (comments and layout kept); fixing want.toml changes nothing more
// (idempotent) and leaves no finding that has a fix.
func TestFixGolden(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "fix", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fix cases: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join(dir, "input.toml"))
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(dir, "want.toml"))
			if err != nil {
				t.Fatal(err)
			}
			got, ds := fixOnce(t, in)
			if !bytes.Equal(got, want) {
				t.Errorf("fixed output differs\n--- got\n%s--- want\n%s", got, want)
			}
			fixable := 0
			for _, d := range ds {
				if d.Fix != nil {
					fixable++
				}
			}
			if fixable == 0 {
				t.Error("the input has no fixable finding, so the case tests nothing")
			}
			again, ds := fixOnce(t, got)
			if !bytes.Equal(again, got) {
				t.Errorf("fix is not idempotent\n--- once\n%s--- twice\n%s", got, again)
			}
			for _, d := range ds {
				if d.Fix != nil {
					t.Errorf("fixed file still has a fixable finding: %s", d)
				}
			}
		})
	}
}

// FuzzFix: for any config that loads, fixing it yields a file that still
// loads, has no fixable finding left, and that a second fix leaves alone.
func FuzzFix(f *testing.F) {
	for _, c := range []string{"empty_lists", "insecure_allow", "unused_suppression"} {
		b, err := os.ReadFile(filepath.Join("testdata", "fix", c, "input.toml"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("[conversation.tools.t]\nsource = \"local\"\naccess.net = []\naccess.env = []\n"))
	f.Fuzz(func(t *testing.T, input []byte) {
		g := setup(t, &txtar.Archive{Files: []txtar.File{{Name: ".jp/config.toml", Data: input}}})
		if g.loadErr != nil {
			return
		}
		once, _ := fixOnce(t, input)
		g2 := setup(t, &txtar.Archive{Files: []txtar.File{{Name: ".jp/config.toml", Data: once}}})
		if g2.loadErr != nil {
			t.Fatalf("fixed file does not load: %v\n--- input\n%s--- fixed\n%s", g2.loadErr, input, once)
		}
		twice, ds := fixOnce(t, once)
		for _, d := range ds {
			if d.Fix != nil {
				t.Fatalf("fixed file still has a fixable finding: %s\n--- input\n%s--- fixed\n%s", d, input, once)
			}
		}
		if !bytes.Equal(once, twice) {
			t.Fatalf("not idempotent\n--- once\n%s--- twice\n%s", once, twice)
		}
	})
}
