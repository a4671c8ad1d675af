package launcher

// sandboxExec is macOS's sandbox launcher; its absolute path keeps PATH
// out of the decision of what enforces the sandbox.
const sandboxExec = "/usr/bin/sandbox-exec"

// SandboxExecArgv is the argv the macOS launcher execs: sandbox-exec with
// the compiled SBPL profile, then the program by its resolved path (so
// what runs is what the commands check saw; a name starting with '-'
// cannot be taken for an option) and its arguments unchanged.
func SandboxExecArgv(profile, path string, argv []string) []string {
	out := make([]string, 0, len(argv)+4)
	out = append(out, sandboxExec, "-f", profile, "--", path)
	return append(out, argv[1:]...)
}
