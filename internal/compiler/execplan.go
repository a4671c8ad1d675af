package compiler

import (
	"fmt"
	"runtime"

	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/emit/landlock"
	"github.com/jp-policy/jp-policy/internal/execplan"
	"github.com/jp-policy/jp-policy/internal/seccomp"
)

// execPlan builds tool name's exec plan (execplan.Plan): the exec index
// file's hash and, when the Linux manifest m
// needs no namespace for an exact run, the fast path with every decision
// taken here (rights as bits, the ABI that enforces every clause), so the
// exec path only applies it.
func execPlan(p *artifact.Policy, name string, m *landlock.Manifest, linuxSHA, execSHA string) ([]byte, error) {
	t := p.Tools[name]
	pl := &execplan.Plan{Tool: name, Root: p.Root, ExecSHA256: execSHA, Enabled: t.Enabled}
	if m != nil && t.Enabled {
		f, err := fastPlan(m)
		if err != nil {
			return nil, fmt.Errorf("exec plan: %w", err)
		}
		if f != nil {
			f.LinuxSHA256 = linuxSHA
			f.TmpAccess = uint64(landlock.TmpRights)
			for abi := range landlock.MaxFSABI + 1 {
				f.HandledFS = append(f.HandledFS, uint64(landlock.RightsForABI(abi)))
			}
		}
		pl.Fast = f
	}
	return execplan.Encode(pl), nil
}

// fastPlan is m as the fast path applies it, or nil when a part of the
// policy needs the namespaced path (landlock.NamespaceNeeds) or the
// manifest has no seccomp spec: those runs are the full path's.
func fastPlan(m *landlock.Manifest) (*execplan.Fast, error) {
	if m.Seccomp == nil || len(landlock.NamespaceNeeds(m)) > 0 {
		return nil, nil
	}
	need, err := landlock.NeedABI(m)
	if err != nil {
		return nil, err
	}
	f := &execplan.Fast{
		NeedABI:     need,
		EnvMinimal:  m.Env.Minimal,
		EnvRules:    m.Env.Rules,
		Commands:    m.Commands,
		NetRestrict: m.Net.Restrict,
		ConnectTCP:  m.Net.ConnectTCP,
		BindTCP:     m.Net.BindTCP,
		Seccomp:     *m.Seccomp,
	}
	// A granted path that is a Unix socket at exec time needs the
	// namespaced path (launcher's namespaceNeeds): exec checks these.
	if m.Namespace != nil && len(m.Net.BindTCP) == 0 {
		for _, b := range m.Namespace.Binds {
			f.Sockets = append(f.Sockets, b.Path)
		}
	}
	// The seccomp program, assembled once here rather than on every exec.
	if arch, err := seccomp.ArchFor(runtime.GOARCH); err == nil {
		prog, err := seccomp.Build(*m.Seccomp, arch)
		if err != nil {
			return nil, err
		}
		f.FilterArch, f.Filter = runtime.GOARCH, prog
	}
	for _, s := range m.Scope {
		f.Scoped |= landlock.ScopeBits[s] // UsedABI refused unknown names
	}
	for _, set := range []struct {
		from []landlock.PathRule
		to   *[]execplan.Rule
	}{{m.Baseline, &f.Baseline}, {m.FS, &f.FS}} {
		for _, r := range set.from {
			mask, err := landlock.RuleRights(r.Clause, r.Access)
			if err != nil {
				return nil, err
			}
			*set.to = append(*set.to, execplan.Rule{Path: r.Path, Access: uint64(mask), Clause: r.Clause, Optional: r.Optional})
		}
	}
	return f, nil
}
