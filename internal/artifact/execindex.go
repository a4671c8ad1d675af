package artifact

import (
	"github.com/jp-policy/jp-policy/internal/execplan"
)

// DirExec holds one small file per tool for exec (execplan.DirExec).
const DirExec = execplan.DirExec

// ExecTool is what exec needs of one tool (execplan.Exec): the fields of
// Tool it reads, which are also the tool's part of its exec plan.
type ExecTool = execplan.Exec

// ToolFileNameOK reports whether a tool name can name the artifact's
// per-tool files (execplan.ToolFileNameOK).
func ToolFileNameOK(name string) bool { return execplan.ToolFileNameOK(name) }

// PlanOf builds tool name's exec plan from the compiled artifact. It
// depends on nothing but the tool's compiled policy and the workspace
// root, so that a config edit which leaves the tool's policy alone leaves
// the plan byte for byte the same (the next compile links it instead of
// writing it); the pin's hash of it binds it to one compile.
func PlanOf(p *Policy, name string) *execplan.Plan {
	t := p.Tools[name]
	pl := &execplan.Plan{Tool: name, Root: p.Root}
	pl.Enabled = t.Enabled
	pl.Access.Env = t.Access.Env
	pl.Access.Commands = t.Access.Commands
	pl.Access.Net = t.Access.Net
	pl.Manifests = t.Manifests
	pl.ManifestSHA256 = t.ManifestSHA256
	pl.BaseSHA256 = t.BaseSHA256
	return pl
}
