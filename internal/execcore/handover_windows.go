//go:build windows

package execcore

import (
	"errors"
	"os"
	"os/exec"
)

// runFullCLI runs `jp-policy exec ARGS...` and exits with its status
// (Windows has no execve).
func runFullCLI(args []string) {
	full, err := fullBinary()
	if err == nil {
		cmd := exec.Command(full, append([]string{"exec"}, args...)...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		err = cmd.Run()
		if ee, ok := errors.AsType[*exec.ExitError](err); ok {
			os.Exit(ee.ExitCode())
		}
		if err == nil {
			os.Exit(0)
		}
	}
	os.Stderr.WriteString("jp-policy-exec: cannot hand this run to `jp-policy exec`: " + err.Error() + "\n")
	os.Exit(125)
}
