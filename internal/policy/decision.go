package policy

import "encoding/json"

// Decision is the outcome of one check. Its JSON form is the stable
// `jp-policy check --json` contract.
type Decision struct {
	Allowed bool
	// Err says why the request was refused: *PathError (fs rejections and
	// escapes), *DeniedError (no rule grants it) or *InputError
	// (malformed request). nil when Allowed.
	Err error
	// Resolved is the canonical absolute path (fs only, "" when the path
	// could not be resolved).
	Resolved string
	// Rule is the winning rule in wire form (FsRule, NetRule, EnvRule,
	// ConfigRule or CommandMatch), nil when none matched or the resource
	// type is unrestricted.
	Rule any
	// Grants lists what grants the asked capability: fs rule paths ("."
	// for the root), net rule patterns, env names, config paths, program
	// names.
	Grants []string
	// Asked describes the request for human output ("read on fs
	// \"src/lib.rs\""); not part of the JSON form.
	Asked string
}

// CommandMatch is the wire form of a matched command rule: the rule plus
// the key it is filed under.
type CommandMatch struct {
	Program string `json:"program"`
	CommandRule
}

type decisionErrorJSON struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

type decisionJSON struct {
	Allowed  bool               `json:"allowed"`
	Error    *decisionErrorJSON `json:"error"`
	Resolved string             `json:"resolved,omitempty"`
	Rule     any                `json:"rule"`
	Grants   []string           `json:"grants"`
}

// MarshalJSON writes {"allowed", "error", "resolved", "rule", "grants"}.
// error is null or {"kind", "message"} with kind one of absolute,
// input_escape, escape, denied, io, invalid; grants is never null.
func (d Decision) MarshalJSON() ([]byte, error) {
	out := decisionJSON{Allowed: d.Allowed, Resolved: d.Resolved, Rule: d.Rule, Grants: d.Grants}
	if out.Grants == nil {
		out.Grants = []string{}
	}
	if d.Err != nil {
		out.Error = &decisionErrorJSON{Kind: ErrorKind(d.Err), Message: d.Err.Error()}
	}
	return json.Marshal(out)
}
