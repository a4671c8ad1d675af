package execplan

// DirExec holds one small file per tool with everything `jp-policy exec`
// needs for that tool (the exec plan, PlanFile), so that exec reads,
// hashes and decodes an amount that does not grow with the number of
// tools: the pin records each plan's hash (Pin.Tools). policy.json stays
// the whole artifact, for JP, humans, diff and review.
const DirExec = "exec"

// ToolFileNameOK reports whether a tool name can name the artifact's
// per-tool files (the compiler refuses others): ^[A-Za-z0-9_][A-Za-z0-9_.-]*$.
// Written out rather than as a regexp: exec calls it, and a package-level
// regexp is compiled at start-up by every jp-policy command.
func ToolFileNameOK(name string) bool {
	if name == "" || name[0] == '.' || name[0] == '-' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}
