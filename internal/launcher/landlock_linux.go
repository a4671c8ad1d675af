//go:build linux

package launcher

import (
	"github.com/jp-policy/jp-policy/internal/execplan"
	"github.com/jp-policy/jp-policy/internal/plan/landlock"

	"golang.org/x/net/bpf"
)

// sandboxFor is the one place a manifest becomes a Sandbox (kernel bits);
// buildRuleset (ruleset_linux.go) applies it on either path.

// sandboxFor resolves m's rules, with fs as its policy grants (m.FS, or
// m.MaskedFS under masks), for a kernel with the given ABI and the
// seccomp program filter, and trace, exec --denials' program (Plan.Trace),
// installed just before it. Unknown rights are refused.
func sandboxFor(m *landlock.Manifest, fs []landlock.PathRule, abi int, filter, trace []bpf.RawInstruction) (*Sandbox, error) {
	s := &Sandbox{ABI: abi, HandledFS: fsRightsFor(abi), ConnectTCP: m.Net.ConnectTCP, BindTCP: m.Net.BindTCP, Filter: filter, Trace: trace}
	var err error
	if s.Baseline, err = coreRules(m.Baseline); err != nil {
		return nil, err
	}
	if s.FS, err = coreRules(fs); err != nil {
		return nil, err
	}
	if m.Net.Restrict {
		s.HandledNet = netRightsFor(abi)
	}
	for _, sc := range m.Scope {
		s.Scoped |= landlock.ScopeBits[sc]
	}
	s.Scoped &= scopesFor(abi)
	return s, nil
}

func coreRules(rules []landlock.PathRule) ([]execplan.Rule, error) {
	out := make([]execplan.Rule, 0, len(rules))
	for _, r := range rules {
		mask, err := parseRights(r.Clause, r.Access)
		if err != nil {
			return nil, err
		}
		out = append(out, execplan.Rule{Path: r.Path, Access: mask, Clause: r.Clause, Optional: r.Optional})
	}
	return out, nil
}
