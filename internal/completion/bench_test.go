package completion

import (
	"io"
	"testing"
)

// BenchmarkWrite measures rendering testCLI's script per shell; the
// command runs once per install, so this only guards against blow-ups.
func BenchmarkWrite(b *testing.B) {
	var t testing.T
	tree := testTree(&t)
	for _, shell := range Shells {
		b.Run(shell, func(b *testing.B) {
			for b.Loop() {
				if err := Write(io.Discard, shell, tree); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
