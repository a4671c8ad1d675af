package launcher

import (
	"errors"
	"io"
	"runtime/debug"

	"github.com/jp-policy/jp-policy/internal/platform"
)

// Run is `jp-policy exec`: it prepares the plan and, unless DryRun, execs
// it. On Linux and macOS a successful run never returns; on Windows it
// returns a *ChildExit with the child's status. With DryRun it writes the
// report to stdout and returns the refusal, if any.
func Run(o *Options, stdout, stderr io.Writer) error {
	// The exec path reads, hashes and scans policy.json once and then
	// replaces itself: every byte it allocates is live until then, so a
	// collection can free nothing, and on a large workspace (a 19 MB
	// policy.json for 1,000 tools) the collector's stop-the-world spinning
	// was most of the run. The namespaced path, which stays as a
	// supervisor, turns collection back on before it waits.
	debug.SetGCPercent(-1)
	if o.Platform == platform.Linux {
		o.ABI = KernelABI()
	}
	p, err := Prepare(o)
	if o.DryRun {
		var usage *UsageError
		if p == nil || errors.As(err, &usage) {
			return err
		}
		write := WriteDryRun
		if o.DryRunJSON {
			write = WriteDryRunJSON
		}
		if werr := write(stdout, p, err); werr != nil {
			return werr
		}
		return err
	}
	if err != nil {
		return err
	}
	WarnDegraded(stderr, p)
	return Exec(p)
}
