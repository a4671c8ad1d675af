package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/jp-policy/jp-policy/internal/benchws"
)

// benchWorkspace writes a workspace with n local tools of 10 fs rules
// each (package benchws: the shape bench/compile.sh measures too).
func benchWorkspace(tb testing.TB, n int) string {
	tb.Helper()
	root, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	if err := benchws.Write(root, n); err != nil {
		tb.Fatal(err)
	}
	return root
}

func benchOptions(root string) Options {
	env := map[string]string{"JP_USER_DATA_DIR": filepath.Join(root, ".data"), "JP_GLOBAL_CONFIG_DIR": filepath.Join(root, ".global"), "HOME": root}
	return Options{Config: configOptionsFor(root, env), Generator: "bench"}
}

var benchSizes = []int{1000, 10000}

func skipLarge(b *testing.B, n int) {
	if n > 1000 && testing.Short() {
		b.Skip("large size skipped in -short")
	}
}

// BenchmarkBuild compiles n tools with 10 fs rules each, in memory (load,
// lint, bind, emit for three platforms, encode). Compare the ns/op of the
// sizes to see how time grows with the number of tools.
func BenchmarkBuild(b *testing.B) {
	benchSizesOf(b, Build)
}

// BenchmarkCompile is `jp-policy compile --accept-widening` without the
// CLI: Build, review the grants against the last accepted ones, write the
// artifact directory, make it durable, swap it in and pin it. Every
// iteration replaces the previous iteration's artifact, as a recompile
// does. Compare with BenchmarkCompileFloor at the same size.
func BenchmarkCompile(b *testing.B) {
	benchSizesOf(b, compileAsCLI)
}

func compileAsCLI(opts Options) (*Result, error) {
	res, _, _, err := CompileReviewed(opts, Review{Accept: true})
	return res, err
}

// BenchmarkCompileEdited is BenchmarkCompile after an edit of the config
// before every iteration (a comment appended): the config's hash changes,
// which is recorded only in policy.json and the pin (the staleness
// inputs), so every per-tool file is still reused, as in
// BenchmarkCompile, which recompiles an unchanged workspace. (Before the
// inputs moved to the pin, every Landlock, job object and exec file
// carried the digest and was written anew.)
func BenchmarkCompileEdited(b *testing.B) {
	forBenchSizes(b, func(b *testing.B, _ int, root string) {
		opts := benchOptions(root)
		cfg := filepath.Join(root, ".jp", "config.toml")
		for i := 0; b.Loop(); i++ {
			b.StopTimer()
			f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
			if err == nil {
				_, err = fmt.Fprintf(f, "# edit %d\n", i)
				f.Close()
			}
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if _, err := compileAsCLI(opts); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// forBenchSizes runs bench as a sub-benchmark per size, on a fresh
// workspace of that many tools.
func forBenchSizes(b *testing.B, bench func(b *testing.B, n int, root string)) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			skipLarge(b, n)
			bench(b, n, benchWorkspace(b, n))
		})
	}
}

func benchSizesOf(b *testing.B, compile func(Options) (*Result, error)) {
	forBenchSizes(b, func(b *testing.B, n int, root string) {
		opts := benchOptions(root)
		for b.Loop() {
			res, err := compile(opts)
			if err != nil {
				b.Fatal(err)
			}
			if len(res.Artifact.Tools) != n {
				b.Fatalf("compiled %d tools, want %d", len(res.Artifact.Tools), n)
			}
		}
	})
}

// BenchmarkCompileFloor is the least any compile of the same workspace
// must do: read the config file and write the same files (same names,
// same sizes) into a fresh directory with one syncfs, then remove the
// previous copy. BenchmarkCompile / this is how far compile is from the
// cost of its own output.
func BenchmarkCompileFloor(b *testing.B) {
	forBenchSizes(b, func(b *testing.B, _ int, root string) {
		opts := benchOptions(root)
		res, err := Build(opts)
		if err != nil {
			b.Fatal(err)
		}
		names := make([]string, 0, len(res.Files))
		for name := range res.Files {
			names = append(names, name)
		}
		sort.Strings(names)
		out := filepath.Join(root, "floor")
		for i := 0; b.Loop(); i++ {
			if _, err := os.ReadFile(filepath.Join(root, ".jp", "config.toml")); err != nil {
				b.Fatal(err)
			}
			dir := fmt.Sprintf("%s.%d", out, i)
			if err := floorWrite(dir, names, res.Files); err != nil {
				b.Fatal(err)
			}
			if err := os.RemoveAll(fmt.Sprintf("%s.%d", out, i-1)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func floorWrite(dir string, names []string, files map[string][]byte) error {
	made := map[string]bool{}
	for _, name := range names {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if d := filepath.Dir(p); !made[d] {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
			made[d] = true
		}
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return err
		}
	}
	return syncTree(dir)
}
