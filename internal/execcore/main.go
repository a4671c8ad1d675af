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
