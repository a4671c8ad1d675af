package main

import (
	"io"
	"testing"

	"github.com/alecthomas/kong"
)

// benchKongExec parses an exec line with kong over grammar.
func benchKongExec(b *testing.B, grammar func() any) {
	for i := 0; i < b.N; i++ {
		p, err := kong.New(grammar(), kong.Name("jp-policy"), kong.Vars{"version": version},
			kong.Exit(func(int) {}), kong.Writers(io.Discard, io.Discard))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Parse([]string{"exec", "-t", "tool", "--", "true"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkKongExecParse is kong over the whole CLI: its model is built by
// reflection before any argument is read.
func BenchmarkKongExecParse(b *testing.B) {
	benchKongExec(b, func() any { return &CLI{} })
}

// BenchmarkKongReducedExecParse is kong over the one-command grammar
// (grammar.go), what exec would cost without its fast parser.
func BenchmarkKongReducedExecParse(b *testing.B) {
	benchKongExec(b, func() any { g, _, _ := commandGrammar("exec"); return g })
}
