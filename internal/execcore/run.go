package execcore

import (
	"errors"
)

// ErrHandOver is Try's answer for a run the fast path does not take: the
// tool needs the namespaced path, the kernel's ABI is too old for every
// clause, the artifact is stale, tampered or missing, the command is not
// allowed, ... The caller then runs the full path (package launcher),
// which decides the same run again and reports it in full. Nothing the
// fast path did before handing over is visible to the command.
var ErrHandOver = errors.New("the full exec path decides this run")

// Options is one run of the fast path: `jp-policy exec -t TOOL [-w DIR]
// -- CMD...` without any flag that needs the full path.
type Options struct {
	// Workspace is the -w flag; "" finds the root from the working
	// directory (the nearest ancestor holding .jp).
	Workspace string
	Tool      string
	Argv      []string
	Environ   []string
}

// Try runs o on the fast path and does not return when the command was
// exec'd. Otherwise (a run the fast path leaves to the full one, or the
// command's own execve failing under the sandbox, which the full path
// runs again to report with its hints) it calls rest, the full path,
// with the reason, and returns when rest does.
//
// The fast path locks the calling goroutine to its OS thread before it
// restricts that thread, and never unlocks it. When it fails after that
// point, rest runs on a fresh goroutine (so on another, unrestricted
// thread) while this one waits; the restricted thread only ever runs the
// wait and what the caller does after Try returns, which must not need
// more than writing to open descriptors and exiting.
func Try(o *Options, rest func(why error)) {
	locked, why := run(o)
	if !locked {
		rest(why)
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		rest(why)
	}()
	<-done
}

// handOver wraps why the fast path leaves a run to the full one.
type handOver struct{ why error }

func (h *handOver) Error() string        { return ErrHandOver.Error() + ": " + h.why.Error() }
func (h *handOver) Is(target error) bool { return target == ErrHandOver }
func (h *handOver) Unwrap() error        { return h.why }

func handOffMsg(why string) error { return &handOver{why: errors.New(why)} }
