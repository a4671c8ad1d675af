//go:build !linux && !darwin && !windows

package launcher

import (
	"fmt"
	"runtime"
)

// KernelABI is 0: Landlock is Linux-only.
func KernelABI() int { return 0 }

// Exec refuses: there is no sandbox on this platform, and the launcher
// never runs a command unsandboxed.
func Exec(p *Plan) error {
	return fmt.Errorf("jp-policy exec has no sandbox for %s; refusing to run unsandboxed", runtime.GOOS)
}
