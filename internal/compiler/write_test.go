package compiler

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/execplan"
	ll "github.com/jp-policy/jp-policy/internal/plan/landlock"
	sbplan "github.com/jp-policy/jp-policy/internal/plan/sbpl"
	"github.com/jp-policy/jp-policy/internal/platform"
)

// readTree returns every file under dir by slash-separated relative path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The stitched policy.json (entries encoded by the workers, streamed in
// name order) must be byte for byte what encoding the whole artifact
// gives, with no tools, one, and many.
func TestPolicyJSONStitchedIsMarshalled(t *testing.T) {
	for _, n := range []int{0, 1, 40} {
		root := benchWorkspace(t, n)
		if n == 0 {
			// A tool that is not local: nothing compiled.
			cfg := "[conversation.tools.mcp]\nsource = \"mcp.x\"\n"
			if err := os.WriteFile(filepath.Join(root, ".jp", "config.toml"), []byte(cfg), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		res, err := Build(benchOptions(root))
		if err != nil {
			t.Fatal(err)
		}
		want, err := compactJSON(res.Artifact)
		if err != nil {
			t.Fatal(err)
		}
		got := res.Files[artifact.FileName]
		if !bytes.Equal(got, want) {
			i := 0
			for i < min(len(got), len(want)) && got[i] == want[i] {
				i++
			}
			t.Fatalf("tools=%d: stitched policy.json differs from the encoded artifact at byte %d:\ngot  %q\nwant %q", n, i, got[max(0, i-40):min(len(got), i+40)], want[max(0, i-40):min(len(want), i+40)])
		}
		if res.policySHA256 != artifact.SHA256Hex(want) {
			t.Errorf("tools=%d: recorded hash is not policy.json's", n)
		}
	}
}

// Compile streams the files to disk; they must be exactly Build's, the
// pin must name their hashes, a recompile must replace the whole
// directory (a file no longer produced goes), and no stage may be left.
func TestCompileWritesWhatBuildBuilds(t *testing.T) {
	root := benchWorkspace(t, 30)
	opts := benchOptions(root)
	if _, _, err := Compile(opts); err != nil {
		t.Fatal(err)
	}
	out := defaultOutDir(root)
	stray := filepath.Join(out, artifact.DirSBPL, "gone.sb")
	if err := os.WriteFile(stray, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, dir, err := Compile(opts)
	if err != nil {
		t.Fatal(err)
	}
	if dir != out {
		t.Fatalf("wrote %s, want %s", dir, out)
	}
	built, err := Rebuild(opts)
	if err != nil {
		t.Fatal(err)
	}
	got := readTree(t, out)
	if len(got) != len(built.Files) {
		t.Errorf("compile wrote %d files, Build built %d", len(got), len(built.Files))
	}
	for rel, want := range built.Files {
		if !bytes.Equal(got[rel], want) {
			t.Errorf("%s: written bytes differ from Build's", rel)
		}
	}
	entries, err := os.ReadDir(filepath.Dir(out))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") && e.Name() != ".id" {
			t.Errorf("left behind beside the artifact: %s", e.Name())
		}
	}
	pin, err := artifact.ReadPin(filepath.Join(root, ".data"), root, filepath.Join(out, artifact.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if pin.SHA256 != artifact.SHA256Hex(got[artifact.FileName]) {
		t.Error("the pin does not name policy.json's hash")
	}
	for name := range res.Artifact.Tools {
		if pin.Tools[name] != artifact.SHA256Hex(got[execplan.PlanFile(name)]) {
			t.Fatalf("the pin does not name %s's exec plan hash", name)
		}
		pl, err := execplan.Decode(got[execplan.PlanFile(name)])
		if err != nil {
			t.Fatal(err)
		}
		// The plan binds the manifests and the shared files they are
		// completed with.
		for plat, rel := range pl.Manifests {
			if pl.ManifestSHA256[plat] != artifact.SHA256Hex(got[rel]) {
				t.Fatalf("%s's exec plan does not name its %s manifest's hash", name, plat)
			}
		}
		for plat, rel := range map[platform.Platform]string{platform.Linux: ll.BaseFile, platform.Darwin: sbplan.BaseFile} {
			if pl.BaseSHA256[plat] != artifact.SHA256Hex(got[rel]) || len(got[rel]) == 0 {
				t.Fatalf("%s's exec plan does not name the hash of %s", name, rel)
			}
		}
	}
	if res.Files != nil {
		t.Error("Compile kept the files in memory")
	}
}

// A refused compile (a widening nobody accepted) must leave the previous
// artifact as it was and no stage behind.
func TestRefusedCompileLeavesNoStage(t *testing.T) {
	root := benchWorkspace(t, 3)
	opts := benchOptions(root)
	if _, _, err := Compile(opts); err != nil {
		t.Fatal(err)
	}
	out := defaultOutDir(root)
	before := readTree(t, out)
	cfg := filepath.Join(root, ".jp", "config.toml")
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("[conversation.tools.wider]\nsource = \"local\"\ncommand = \"true\"\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, _, _, err = CompileReviewed(opts, Review{})
	if _, ok := errors.AsType[*WideningError](err); !ok {
		t.Fatalf("want a widening refused, got %v", err)
	}
	after := readTree(t, out)
	if len(after) != len(before) {
		t.Errorf("the refused compile changed the artifact: %d files, was %d", len(after), len(before))
	}
	for rel, b := range before {
		if !bytes.Equal(after[rel], b) {
			t.Errorf("%s changed", rel)
		}
	}
}

// Both ways of swapping the artifact in (renameat2 exchange where the
// platform has it, and two renames) must leave the new content in place
// and the previous one at next, with or without a previous one.
func TestSwapDirs(t *testing.T) {
	for _, tc := range []struct {
		name string
		swap func(next, cur string) error
	}{{"swapDirs", swapDirs}, {"swapByRename", swapByRename}} {
		for _, hadOld := range []bool{true, false} {
			dir := t.TempDir()
			next, cur := filepath.Join(dir, "next"), filepath.Join(dir, "cur")
			if err := os.MkdirAll(next, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(next, "f"), []byte("new"), 0o644); err != nil {
				t.Fatal(err)
			}
			if hadOld {
				if err := os.MkdirAll(cur, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(cur, "f"), []byte("old"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := tc.swap(next, cur); err != nil {
				t.Fatalf("%s (previous: %v): %v", tc.name, hadOld, err)
			}
			if b, err := os.ReadFile(filepath.Join(cur, "f")); err != nil || string(b) != "new" {
				t.Errorf("%s (previous: %v): cur holds %q, %v", tc.name, hadOld, b, err)
			}
			b, err := os.ReadFile(filepath.Join(next, "f"))
			switch {
			case hadOld && string(b) != "old":
				t.Errorf("%s: the previous content is not at next: %q, %v", tc.name, b, err)
			case !hadOld && err == nil:
				t.Errorf("%s: next should be gone without a previous artifact", tc.name)
			}
		}
	}
}
