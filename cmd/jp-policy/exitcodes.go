package main

import (
	"errors"
	"io/fs"
	"os/exec"

	"github.com/jp-policy/jp-policy/internal/compiler"
	"github.com/jp-policy/jp-policy/internal/launcher"
)

// exec's exit codes follow env(1), timeout(1), chroot(8) and docker run:
// the command's own status passes through (a signal as 128+n, the shell's
// convention), so jp-policy's own outcomes take the codes a command rarely
// uses. docs/commands.md documents them.
const (
	// exitRefused: jp-policy itself refused or failed (bad flags, no or
	// stale artifact, unknown or disabled tool, command not allowed, a
	// kernel that cannot enforce the policy). An unknown tool gives it
	// in check and explain too, so a script reads one code for "no such
	// tool" whichever command it ran.
	exitRefused = 125
	// exitCannotExecute: the program was found but cannot be executed.
	exitCannotExecute = 126
	// exitNotFound: the program was not found.
	exitNotFound = 127
)

// execExitCode maps the launcher's outcome to exec's exit code.
func execExitCode(err error) int {
	var (
		child    *launcher.ChildExit
		notFound *launcher.NotFoundError
		execErr  *launcher.ExecError
	)
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &child):
		return child.Code
	case errors.As(err, &notFound):
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return exitNotFound
		}
		return exitCannotExecute // found, but a directory or not executable
	case errors.As(err, &execErr):
		return exitCannotExecute
	}
	return exitRefused
}

// toolError gives an unknown (or non-local) tool exitRefused in check and
// explain, as in exec; other errors keep code.
func toolError(code int, err error) error {
	if errors.Is(err, compiler.ErrUnknownTool) {
		return fail(exitRefused, err)
	}
	return fail(code, err)
}
