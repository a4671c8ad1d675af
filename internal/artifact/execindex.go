package artifact

import (
	"github.com/jp-policy/jp-policy/internal/execplan"
	"github.com/jp-policy/jp-policy/internal/platform"

	"github.com/jp-policy/jp-policy/policy"
)

// DirExec holds one small file per tool for exec (execplan.DirExec).
const DirExec = execplan.DirExec

// ExecIndex is one tool's exec file: the artifact's root, digest and
// staleness inputs, and the tool's part of policy.json.
type ExecIndex struct {
	Format int      `json:"format"`
	Root   string   `json:"root"`
	Digest string   `json:"digest"`
	Inputs []Input  `json:"inputs"`
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
	x := ExecIndex{Format: FormatVersion, Root: p.Root, Digest: p.Digest, Inputs: p.Inputs}
	x.Tool.Enabled = t.Enabled
	x.Tool.Access.Env = t.Access.Env
	x.Tool.Access.Commands = t.Access.Commands
	x.Tool.Access.Net = t.Access.Net
	x.Tool.Manifests = t.Manifests
	x.Tool.ManifestSHA256 = t.ManifestSHA256
	return x
}
