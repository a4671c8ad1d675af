package launcher

import "fmt"

// ExecError is the kernel refusing to start the planned program (execve,
// or CreateProcess on Windows) after every check of the launcher passed:
// the file is not executable, not a format the kernel runs, its
// interpreter is missing, or the sandbox denies executing it. jp-policy
// exec exits 126 for it, as env(1) and docker run do for a command that
// cannot be invoked; a program not found on PATH is a *NotFoundError
// before the sandbox is built.
type ExecError struct {
	Path string
	Err  error
	// Hint says how to grant the program when the tool's grants are why
	// it cannot run (Plan.grantHint); "" otherwise.
	Hint string
}

func (e *ExecError) Error() string {
	if e.Hint != "" {
		return fmt.Sprintf("cannot execute %s: %v\n%s", e.Path, e.Err, e.Hint)
	}
	return fmt.Sprintf("cannot execute %s: %v", e.Path, e.Err)
}

func (e *ExecError) Unwrap() error { return e.Err }
