//go:build unix

package execcore

import (
	"os"
	"syscall"
)

// runFullCLI replaces this process with `jp-policy exec ARGS...`.
func runFullCLI(args []string) {
	full, err := fullBinary()
	if err == nil {
		err = syscall.Exec(full, append([]string{"jp-policy", "exec"}, args...), os.Environ())
	}
	os.Stderr.WriteString("jp-policy-exec: cannot hand this run to `jp-policy exec`: " + err.Error() + "\n")
	os.Exit(125)
}
