//go:build ignore

// genws writes the large workspace bench/compile.sh and the compiler's
// benchmarks measure (package benchws: N local tools, 10 fs rules each).
//
//	go run bench/genws.go DIR N
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/jp-policy/jp-policy/internal/benchws"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go run bench/genws.go DIR N")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[2])
	if err != nil || n < 0 {
		fmt.Fprintln(os.Stderr, "genws: N must be a number of tools")
		os.Exit(2)
	}
	if err := benchws.Write(os.Args[1], n); err != nil {
		fmt.Fprintln(os.Stderr, "genws:", err)
		os.Exit(1)
	}
}
