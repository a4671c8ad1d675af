package artifact

import (
	"github.com/jp-policy/jp-policy/internal/platform"
	"path"
	"strings"

	"github.com/jp-policy/jp-policy/policy"
)

// DirExec holds one small file per tool with everything `jp-policy exec`
// needs for that tool (ExecIndex), so that exec reads, hashes and decodes
// an amount that does not grow with the number of tools: the pin records
// each file's hash (Pin.Tools). policy.json stays the whole artifact, for
// JP, humans, diff and review.
const DirExec = "exec"

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

// ExecFile is the exec file of tool, relative to the artifact directory;
// "" for a name that cannot be a file name (so `exec -t ../x` never
// names a path outside it).
func ExecFile(tool string) string {
	if !ToolFileNameOK(tool) || strings.Contains(tool, "..") {
		return ""
	}
	return path.Join(DirExec, tool+".json")
}

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
