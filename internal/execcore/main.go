package execcore

import (
	"os"
	"runtime"

	"github.com/jp-policy/jp-policy/internal/nsroot"
)

// Main is jp-policy-exec's entry point (cmd/jp-policy-exec): `jp-policy
// exec` for the calls that must cost as little as possible. It takes the
// same arguments as `jp-policy exec`. A run the fast path takes exactly
// (ParseArgs, Args.Fast, Try) is decided and exec'd in this process; any
// other run is handed to the full `jp-policy exec` beside the binary (or
// on PATH) with the same arguments, so the behaviour, the messages and
// the exit codes are the full CLI's and only the cost differs.
func Main(args []string) {
	// The namespaced path re-executes this binary as its stage 2
	// (Stage2Binary): that never returns.
	growStack(0)
	nsroot.Stage2Main()
	// Nothing here is ever profiled: the first sampled allocation would
	// walk the stack and touch code pages a run otherwise never faults
	// in.
	runtime.MemProfileRate = 0
	rest := func(why error) {
		if why != nil && os.Getenv(TraceEnv) != "" {
			os.Stderr.WriteString("jp-policy-exec: " + why.Error() + "\n")
		}
		runFullCLI(args)
	}
	if a, ok := ParseArgs(args); ok {
		if o, ok := a.Fast(); ok {
			o.Environ = os.Environ()
			// rest runs only when the fast path did not exec: a run it
			// leaves to the full path, or a failed execve that the full
			// path runs again to report with its hints.
			Try(o, rest)
			return
		}
	}
	rest(handOffMsg("arguments only the full CLI takes"))
}

// TraceEnv, set to anything, makes jp-policy-exec say on stderr why it
// hands a run to the full CLI (the reason a call is slower than it
// could be). The tool never sees it: it is in no allowlist.
const TraceEnv = "JP_POLICY_EXEC_TRACE"

// growStack moves the calling goroutine to a stack big enough for
// everything a run does, in one step. A goroutine starts with 2 KB and
// doubles its stack each time a call does not fit, and each of the small
// sizes (4, 8, 16 KB) comes from a per-size pool whose first use carves
// a fresh 32 KB span and writes a free-list link into every slot of it:
// about 12 page faults over a run, plus the stack maps read to copy the
// stack each time. A frame larger than 32 KB makes the runtime size the
// new stack for it at once (64 KB, taken from the heap, whose pages are
// touched only as the stack reaches them). The array is declared only
// on a path never taken, so it is never zeroed: its size only sets the
// frame. -4 to -5 page faults a run (perf stat, docs/exec.md).
//
//go:noinline
func growStack(n int) byte {
	if n > 0 {
		var b [40 << 10]byte
		fillStack(b[:n])
		return b[n-1]
	}
	return 0
}

//go:noinline
func fillStack(b []byte) {
	for i := range b {
		b[i] = byte(i)
	}
}
