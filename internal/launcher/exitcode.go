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
}

func (e *ExecError) Error() string { return fmt.Sprintf("cannot execute %s: %v", e.Path, e.Err) }

func (e *ExecError) Unwrap() error { return e.Err }
