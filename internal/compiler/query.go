package compiler

import (
	"fmt"

	"github.com/jp-policy/jp-policy/internal/policy"
	"github.com/jp-policy/jp-policy/internal/suggest"
)

// ToolPolicy compiles the workspace in memory and returns one tool's
// access policy, as `check` and `explain` need it. Nothing is written.
func ToolPolicy(opts Options, name string) (*Result, *policy.AccessPolicy, error) {
	opts.Only = []string{name}
	opts.GrantsOnly = true // check reads the access policy, never the manifests
	res, err := Build(opts)
	if err != nil {
		return nil, nil, err
	}
	if err := res.checkTool(name); err != nil {
		return res, nil, err
	}
	acc := res.Artifact.Tools[name].Access
	return res, &acc, nil
}

// UnknownToolError says a tool is not compiled, and why.
type UnknownToolError struct {
	Name    string
	Source  string   // merged source when the tool exists but is not local
	Similar []string // closest compiled names
}

func (e *UnknownToolError) Error() string {
	if e.Source != "" {
		return fmt.Sprintf("tool %q has source %q: only local tools have an access policy (RFD 076)", e.Name, e.Source)
	}
	msg := fmt.Sprintf("no local tool named %q is configured", e.Name)
	if len(e.Similar) > 0 {
		msg += fmt.Sprintf("; did you mean %q?", e.Similar[0])
	}
	return msg
}

func (e *UnknownToolError) Unwrap() error { return ErrUnknownTool }

func (r *Result) checkTool(name string) error {
	if _, ok := r.Artifact.Tools[name]; ok {
		return nil
	}
	if t, ok := r.Loaded.Tools[name]; ok {
		src := t.Source.Value
		if src == "" {
			src = "(none)"
		}
		return &UnknownToolError{Name: name, Source: src}
	}
	// Every local tool, not only the compiled ones (Options.Only).
	return &UnknownToolError{Name: name, Similar: suggest.Closest(name, localTools(r.Loaded))}
}

// AccessJSON renders one tool's compiled access object exactly as a JP
// tool receives it (and as `check --access` reads it).
func AccessJSON(res *Result, name string) ([]byte, error) {
	if err := res.checkTool(name); err != nil {
		return nil, err
	}
	return marshalJSON(res.Artifact.Tools[name].Access)
}
