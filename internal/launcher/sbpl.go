package launcher

import (
	"path/filepath"
	"strings"

	"github.com/jp-policy/jp-policy/internal/plan/sbpl"
)

// sandboxExec is macOS's sandbox launcher; its absolute path keeps PATH
// out of the decision of what enforces the sandbox.
const sandboxExec = "/usr/bin/sandbox-exec"

// SandboxExecArgv is the argv the macOS launcher execs for a plan:
// sandbox-exec with the compiled SBPL profile file (or, for --default,
// the in-process profile inline), then the program by its resolved path
// (so what runs is what the commands check saw, and a name starting with
// '-' cannot be taken for an option) and its arguments unchanged.
//
// With HostProxy set (a tool with net rules), the profile's
// ProxyPortParam is defined as the port of the launcher's filtering proxy:
// the profile allows outbound TCP to that localhost port and nowhere else.
// The profile's other parameters (sbpl's baseline.tmp and
// baseline.program) are the run's scratch directory, when Exec made one,
// and the program, as found and with its links resolved: the sandbox
// compares resolved paths. A profile whose parameter is left undefined
// fails to load, so nothing runs.
func SandboxExecArgv(p *Plan) []string {
	out := make([]string, 0, len(p.Argv)+14)
	out = append(out, sandboxExec)
	if p.HostProxy != "" {
		_, port, _ := strings.Cut(p.HostProxy, ":")
		out = append(out, "-D", sbpl.ProxyPortParam+"="+port)
	}
	if p.TmpDir != "" {
		out = append(out, "-D", sbpl.TmpDirParam+"="+p.TmpDir)
	}
	prog, real := programPaths(p.Path)
	out = append(out, "-D", sbpl.ProgramParam+"="+prog, "-D", sbpl.ProgramRealParam+"="+real)
	if p.ProfileText != "" {
		out = append(out, "-p", p.ProfileText)
	} else {
		out = append(out, "-f", p.Profile)
	}
	out = append(out, "--", p.Path)
	return append(out, p.Argv[1:]...)
}

// programPaths is the program as an absolute path (a name with a slash is
// found relative to the working directory) and with its links resolved
// (itself when that fails: the exec fails the same way).
func programPaths(path string) (abs, real string) {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	real, err = filepath.EvalSymlinks(abs)
	if err != nil {
		real = abs
	}
	return abs, real
}
