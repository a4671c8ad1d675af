package completion

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the generated scripts")

// TestGolden pins each shell's script for testCLI byte for byte; run with
// -update after a deliberate change and review the diff.
func TestGolden(t *testing.T) {
	for _, shell := range Shells {
		t.Run(shell, func(t *testing.T) {
			var b bytes.Buffer
			if err := Write(&b, shell, testTree(t)); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", shell+".golden")
			if *update {
				must(t, os.WriteFile(golden, b.Bytes(), 0o644))
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				t.Errorf("%s script differs from %s (run go test -update and review the diff)", shell, golden)
			}
		})
	}
}

// TestDeterministic guards against map order or anything else varying
// between runs: the scripts are meant to be checked in and diffed.
func TestDeterministic(t *testing.T) {
	for _, shell := range Shells {
		var first bytes.Buffer
		must(t, Write(&first, shell, testTree(t)))
		for range 5 {
			var again bytes.Buffer
			must(t, Write(&again, shell, testTree(t)))
			if !bytes.Equal(first.Bytes(), again.Bytes()) {
				t.Fatalf("%s: two runs differ", shell)
			}
		}
	}
}
