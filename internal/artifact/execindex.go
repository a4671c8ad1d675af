package artifact

import (
	"github.com/jp-policy/jp-policy/internal/execplan"
	"github.com/jp-policy/jp-policy/internal/platform"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// DirExec holds one small file per tool for exec (execplan.DirExec).
const DirExec = execplan.DirExec

// ExecFormatVersion is the exec file's format. Format 1 also carried the
// artifact digest and the staleness inputs, which are in the pin now
// (Pin.Inputs); format 2 had no shared bases (BaseSHA256); readers
// refuse other formats.
const ExecFormatVersion = 3

// ExecIndex is one tool's exec file: the workspace root and the tool's
// part of policy.json. It depends on nothing else, so that a config edit
// which leaves the tool's policy alone leaves the file byte for byte the
// same (the next compile links it instead of writing it); the pin's hash
// chain (pin -> exec plan -> ExecSHA256) binds it to one compile.
type ExecIndex struct {
	Format int      `json:"format"`
	Root   string   `json:"root"`
	Tool   ExecTool `json:"tool"`
}

// ExecTool is what exec needs of one tool.
type ExecTool struct {
	Enabled bool `json:"enabled"`
	Access  struct {
		Env      []policy.EnvRule              `json:"env"`
		Commands map[string]policy.CommandRule `json:"commands"`
		Net      []policy.NetRule              `json:"net"`
	} `json:"access"`
	Manifests      map[platform.Platform]string `json:"manifests"`
	ManifestSHA256 map[platform.Platform]string `json:"manifest_sha256"`
	BaseSHA256     map[platform.Platform]string `json:"base_sha256,omitempty"`
}

// ToolFileNameOK reports whether a tool name can name the artifact's
// per-tool files (execplan.ToolFileNameOK).
func ToolFileNameOK(name string) bool { return execplan.ToolFileNameOK(name) }

// ExecFile is the exec file of tool, relative to the artifact directory
// (execplan.ExecFile).
func ExecFile(tool string) string { return execplan.ExecFile(tool) }

// ExecIndexOf builds tool's exec file from the compiled artifact.
func ExecIndexOf(p *Policy, name string) ExecIndex {
	t := p.Tools[name]
	x := ExecIndex{Format: ExecFormatVersion, Root: p.Root}
	x.Tool.Enabled = t.Enabled
	x.Tool.Access.Env = t.Access.Env
	x.Tool.Access.Commands = t.Access.Commands
	x.Tool.Access.Net = t.Access.Net
	x.Tool.Manifests = t.Manifests
	x.Tool.ManifestSHA256 = t.ManifestSHA256
	x.Tool.BaseSHA256 = t.BaseSHA256
	return x
}
