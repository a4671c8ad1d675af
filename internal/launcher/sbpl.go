package launcher

import (
	"strings"

	"github.com/jp-policy/jp-policy/internal/emit/sbpl"
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
func SandboxExecArgv(p *Plan) []string {
	out := make([]string, 0, len(p.Argv)+6)
	out = append(out, sandboxExec)
	if p.HostProxy != "" {
		_, port, _ := strings.Cut(p.HostProxy, ":")
		out = append(out, "-D", sbpl.ProxyPortParam+"="+port)
	}
	if p.ProfileText != "" {
		out = append(out, "-p", p.ProfileText)
	} else {
		out = append(out, "-f", p.Profile)
	}
	out = append(out, "--", p.Path)
	return append(out, p.Argv[1:]...)
}
