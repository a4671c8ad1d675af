// Command jp-policy-exec is `jp-policy exec` in a binary of its own, for
// the calls that must cost as little as possible (JP runs every tool call
// through it). It takes the same arguments as `jp-policy exec`. A run
// whose tool's compiled policy Landlock and seccomp enforce exactly
// without namespaces, given as
//
//	jp-policy-exec [-t|--tool TOOL] [-w|--workspace DIR] [--best-effort] [--no-namespaces] -- CMD [ARGS...]
//
// is decided and exec'd here by package execcore, the same fast path
// `jp-policy exec` takes first; a binary that links nothing else starts
// in a fraction of the full CLI's time (docs/exec.md, "jp-policy-exec").
// Every other run (any other flag, a tool that needs the namespaced path
// or the proxy, a kernel that cannot enforce every clause, a stale or
// tampered artifact, a refused command, a failed execve) is handed to the
// full `jp-policy exec` beside this binary (or on PATH) with the same
// arguments, so the behaviour, the messages and the exit codes are
// identical and only the cost differs.
package main

import (
	"os"

	"github.com/jp-policy/jp-policy/internal/execcore"
)

func main() { execcore.Main(os.Args[1:]) }
