package mount

// Rule is one access.fs rule a mount writes, in config terms.
type Rule struct {
	Path     string `json:"path"`
	External bool   `json:"external,omitempty"`
	Read     bool   `json:"read"`
	Write    bool   `json:"write,omitempty"`
	Execute  bool   `json:"execute,omitempty"`
	// WorkspaceDefault marks the `path = "."` rule that keeps a tool's
	// implicit workspace access when the mount is its first fs rule.
	WorkspaceDefault bool `json:"workspace_default,omitempty"`
}

// MountRule is the rule that grants a tool the mount: read always, write
// only for rw and rwx, execute only for rx and rwx, and `external = true` as the user's acknowledgement that
// the path leaves the workspace.
func MountRule(rulePath string, mode Mode) Rule {
	return Rule{Path: rulePath, External: true, Read: true, Write: mode.Writes(), Execute: mode.Executes()}
}

// WorkspaceDefaultRule is D43's default-deny preservation rule.
func WorkspaceDefaultRule() Rule {
	return Rule{Path: ".", Read: true, Write: true, WorkspaceDefault: true}
}
