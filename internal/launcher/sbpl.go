package launcher

// sandboxExec is macOS's sandbox launcher; its absolute path keeps PATH
// out of the decision of what enforces the sandbox.
const sandboxExec = "/usr/bin/sandbox-exec"

// SandboxExecArgv is the argv the macOS launcher execs for a plan:
// sandbox-exec with the compiled SBPL profile file (or, for --default,
// the in-process profile inline), then the program by its resolved path
// (so what runs is what the commands check saw, and a name starting with
// '-' cannot be taken for an option) and its arguments unchanged.
func SandboxExecArgv(p *Plan) []string {
	out := make([]string, 0, len(p.Argv)+4)
	if p.ProfileText != "" {
		out = append(out, sandboxExec, "-p", p.ProfileText)
	} else {
		out = append(out, sandboxExec, "-f", p.Profile)
	}
	out = append(out, "--", p.Path)
	return append(out, p.Argv[1:]...)
}
