package nsroot

import (
	"errors"
	"os"
	"sync/atomic"
	"syscall"
)

// SetUnavailableForTest makes Available report "unavailable" (with
// reason) and Start refuse, so a caller's fallback can be tested on a
// machine where user namespaces work; "" restores the real answer. Only
// tests call it (jp-policy's own test binary maps an environment variable
// to it); nothing in a shipped binary does.
func SetUnavailableForTest(reason string) { unavailableForTest.Store(&reason) }

var unavailableForTest atomic.Pointer[string]

// stage2Arg is argv[1] of the re-exec'd binary. A user typing it gets a
// clear error: stage 2 finds no spec pipe on fd 3.
const stage2Arg = "__jp-policy-nsroot-stage2"

// ErrUnavailable is matched (errors.Is) by every error that means "user
// namespaces do not work here": the caller may fall back to a weaker
// sandbox, having said which clauses become degraded.
var ErrUnavailable = errors.New("unprivileged user namespaces are unavailable")

// UnavailableError says why namespaces cannot be used.
type UnavailableError struct{ Reason string }

func (e *UnavailableError) Error() string        { return ErrUnavailable.Error() + ": " + e.Reason }
func (e *UnavailableError) Is(target error) bool { return target == ErrUnavailable }

// SetupError is a failure of stage 2 before the command ran: a missing
// bind source, a mount point that cannot be made, a refused mask, or the
// command's own execve (Step "exec").
type SetupError struct {
	Step string // "spec", "mount", "mask", "net", "finalize", "exec", ...
	Msg  string
	// Errno is the system error behind it, 0 when there is none (the
	// launcher maps an exec step's EACCES or ENOENT to exit codes 126 and
	// 127, as for a command that cannot run on the fast path).
	Errno syscall.Errno
}

// Unwrap makes errors.Is(err, fs.ErrNotExist) and the like work.
func (e *SetupError) Unwrap() error {
	if e.Errno == 0 {
		return nil
	}
	return e.Errno
}

func (e *SetupError) Error() string { return "sandbox setup (" + e.Step + "): " + e.Msg }

// IsStage2 reports whether this process is a re-exec'd stage 2.
func IsStage2() bool { return len(os.Args) == 2 && os.Args[1] == stage2Arg }
