package compiler

import (
	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/execplan"
)

// execPlan builds tool name's exec plan (execplan.Plan), which binds the
// pin to the tool's exec index file (its hash, execSHA).
func execPlan(p *artifact.Policy, name string, execSHA string) []byte {
	return execplan.Encode(&execplan.Plan{Tool: name, Root: p.Root, ExecSHA256: execSHA, Enabled: p.Tools[name].Enabled})
}
