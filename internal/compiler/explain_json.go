package compiler

import (
	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/platform"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// Explained is explain's machine-readable view (--format json): the same
// facts as the text, as data. docs/output.md documents the shape; field
// order is this struct's, so the bytes are stable.
type Explained struct {
	Tools []ExplainedTool `json:"tools"` // sorted by name
}

// ExplainedTool is one compiled tool.
type ExplainedTool struct {
	Name      string              `json:"name"`
	Source    string              `json:"source"`
	Enabled   bool                `json:"enabled"`
	Defaulted bool                `json:"defaulted"`
	Access    policy.AccessPolicy `json:"access"`
	// Origins says where each compiled rule was written; files are
	// relative to the workspace root when inside it.
	Origins     []artifact.RuleOrigin `json:"origins"`
	Enforcement []ExplainedPlatform   `json:"enforcement"` // in the order asked for
	Warnings    []diag.Diagnostic     `json:"warnings"`
}

// ExplainedPlatform is what one platform's compiled manifest enforces.
type ExplainedPlatform struct {
	Platform platform.Platform `json:"platform"`
	Manifest string            `json:"manifest"` // relative to the artifact directory
	Clauses  []plan.Clause     `json:"clauses"`
}

// ExplainData returns what ExplainPlatforms writes, as data.
func ExplainData(res *Result, name string, platforms []platform.Platform) (*Explained, error) {
	names, err := explainNames(res, name)
	if err != nil {
		return nil, err
	}
	out := &Explained{Tools: []ExplainedTool{}}
	for _, n := range names {
		t := res.Artifact.Tools[n]
		et := ExplainedTool{
			Name: n, Source: t.Source, Enabled: t.Enabled, Defaulted: t.Defaulted,
			Access:      t.Access,
			Origins:     make([]artifact.RuleOrigin, 0, len(t.Origins)),
			Enforcement: make([]ExplainedPlatform, 0, len(platforms)),
			Warnings:    make([]diag.Diagnostic, 0, len(t.Warnings)),
		}
		for _, o := range t.Origins {
			o.Pos = relPos(res.Root, o.Pos)
			et.Origins = append(et.Origins, o)
		}
		for _, d := range t.Warnings {
			d.Pos = relPos(res.Root, d.Pos)
			et.Warnings = append(et.Warnings, d)
		}
		for _, p := range platforms {
			cs := res.Clauses[n][p]
			if cs == nil {
				cs = []plan.Clause{}
			}
			et.Enforcement = append(et.Enforcement, ExplainedPlatform{Platform: p, Manifest: t.Manifests[p], Clauses: cs})
		}
		out.Tools = append(out.Tools, et)
	}
	return out, nil
}
