package main

import (
	"io"
	"testing"

	"github.com/alecthomas/kong"
)

// BenchmarkKongExecParse measures what kong costs on the exec path: the
// model of the whole CLI is built by reflection before any argument is
// read.
func BenchmarkKongExecParse(b *testing.B) {
	for i := 0; i < b.N; i++ {
		var cli CLI
		cli.Stdout, cli.Stderr = io.Discard, io.Discard
		p, err := kong.New(&cli, kong.Name("jp-policy"), kong.Vars{"version": version}, kong.Exit(func(int) {}))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Parse([]string{"exec", "-t", "tool", "--", "true"}); err != nil {
			b.Fatal(err)
		}
	}
}
