package compiler

import (
	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/execplan"
)

// execPlan encodes tool name's exec plan (execplan.Plan), the one file
// exec reads for the tool before its manifest.
func execPlan(p *artifact.Policy, name string) []byte {
	return execplan.Encode(artifact.PlanOf(p, name))
}
