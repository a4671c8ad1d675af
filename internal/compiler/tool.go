package compiler

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/emit"
	"github.com/jp-policy/jp-policy/internal/lint"
	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// wireFs converts a written rule to JP's wire shape at the given lexical
// path, copying the capability fields exactly as written (nil stays nil,
// so JP reads the same tri-state the user wrote).
func wireFs(r config.FsRule, lexical string) policy.FsRule {
	return policy.FsRule{
		LexicalPath: lexical,
		External:    r.External != nil && *r.External,
		Read:        r.Read,
		Write:       r.Write,
		Create:      r.Create,
		Update:      r.Update,
		Delete:      r.Delete,
		Execute:     r.Execute,
	}
}

// buildTool compiles one local tool. It returns the artifact entry and the
// emitter input, whose fs list is what the OS must enforce (an
// unrestricted fs list becomes an explicit workspace grant there).
func buildTool(root string, t, defaults *config.Tool, rules []boundRule, approved map[string]string) (*artifact.Tool, emit.Tool, []diag.Diagnostic) {
	at := &artifact.Tool{
		Source: t.Source.Value,
		// JP's effective_enable: every form of `enable` ("off",
		// "explicit", { state = false }) and the '*' default.
		Enabled: config.EffectiveEnable(t, defaults).State,
	}
	var diags, notes []diag.Diagnostic
	var grants []plan.Grant

	if t.Access == nil {
		at.Defaulted = true
		at.Access = policy.Default()
		at.Origins = []artifact.RuleOrigin{}
		grants = []plan.Grant{{Index: 0, Abs: root, Kind: plan.KindDir}}
	} else {
		a := t.Access
		acc := policy.AccessPolicy{FS: []policy.FsRule{}}
		for _, br := range rules {
			if br.Drop {
				continue
			}
			w := wireFs(br.Src, br.Bound.Lexical)
			g := plan.Grant{Index: len(acc.FS), Abs: br.Bound.Abs, Kind: plan.PathKind(br.Bound.Kind)}
			if br.Bound.External {
				target, ok := approved[br.Bound.Lexical]
				if !ok {
					// approveExternal warned once for the workspace; the
					// tool's own page in explain says it too.
					notes = append(notes, diag.Diagnostic{
						Pos: keyPos(br.Src.Pos, br.Src.Keys, "path"), Severity: diag.Warning, Rule: "JP106",
						Message: lint.UnapprovedMessage(br.Bound.Lexical, []string{t.Name}, br.Bound.Abs),
						Help:    lint.UnapprovedHelp(br.Bound.Lexical) + ", then compile again",
					})
					continue
				}
				w.ApprovedTarget = &target
				g.Abs = target
				g.Link = filepath.Join(root, filepath.FromSlash(br.Bound.Lexical))
			}
			at.Origins = append(at.Origins, artifact.RuleOrigin{Kind: "fs", Index: len(acc.FS), Pos: br.Src.Pos})
			acc.FS = append(acc.FS, w)
			grants = append(grants, g)
		}
		switch {
		case len(a.FS) > 0 && len(acc.FS) == 0:
			// Declared, but nothing survived: deny-all, never unrestricted.
			acc.FS = policy.DenyAllFS()
			grants = []plan.Grant{{Index: 0, Abs: root, Kind: plan.KindDir}}
			diags = append(diags, diag.Diagnostic{
				Pos: lint.FSAllDroppedPos(a.FSDecl, a.Pos), Severity: diag.Warning, Rule: "JP124",
				Message: fmt.Sprintf("every fs rule of tool %q was dropped (broken or unapproved external mounts), so the compiled policy gives it no filesystem access", t.Name),
				Help:    "approve or fix the external rules above, then compile again",
			})
		case len(a.FS) == 0:
			// fs not declared: unrestricted but confined (RFD 076).
			grants = []plan.Grant{{Index: -1, Abs: root, Kind: plan.KindDir}}
		}
		acc.Net, at.Origins = netRules(a, at.Origins)
		acc.Env, at.Origins = envRules(a, at.Origins)
		acc.Config, at.Origins = configRules(a, at.Origins)
		acc.Commands, at.Origins = commandRules(a, at.Origins)
		at.Access = acc
	}
	if at.Origins == nil {
		at.Origins = []artifact.RuleOrigin{}
	}
	at.Grants = grants
	at.Warnings = append(append([]diag.Diagnostic{}, notes...), diags...)
	if at.Warnings == nil {
		at.Warnings = []diag.Diagnostic{}
	}
	et := emit.Tool{Name: t.Name, Root: root, Access: at.Access, Grants: grants, Defaulted: at.Defaulted}
	if len(at.Access.FS) == 0 {
		// What the OS enforces for an unrestricted fs list: the whole
		// workspace, every capability (the cooperative layer allows them
		// all too, so the two layers agree).
		t := new(true)
		et.Access.FS = []policy.FsRule{{LexicalPath: "", Read: t, Write: t, Execute: t}}
		et.Grants = []plan.Grant{{Index: 0, Abs: root, Kind: plan.KindDir}}
	}
	return at, et, diags
}

// netRules compiles access.net. An undeclared list denies all network:
// RFD 075 denies network to sandboxed tools by default and its OS layer
// cannot express "unrestricted"; materialising the deny keeps JP's
// cooperative check and the sandbox in agreement (README: "Where the RFDs
// differ").
func netRules(a *config.Access, origins []artifact.RuleOrigin) ([]policy.NetRule, []artifact.RuleOrigin) {
	if len(a.Net) == 0 {
		return policy.Default().Net, origins
	}
	out := make([]policy.NetRule, 0, len(a.Net))
	start := len(origins)
	for _, r := range a.Net {
		host, err := policy.NormalizeHost(r.Host)
		if err != nil {
			// Lint stops compile on this (JP111), so this is defence in
			// depth: dropping one rule could drop a deny and widen access,
			// so an unreadable list denies all network instead.
			return policy.Default().Net, origins[:start]
		}
		nr := policy.NetRule{Host: host, Scheme: r.Scheme, PathPrefix: r.PathPrefix, Allow: r.Allow != nil && *r.Allow}
		if r.Port != nil {
			p := uint16(*r.Port)
			nr.Port = &p
		}
		origins = append(origins, artifact.RuleOrigin{Kind: "net", Index: len(out), Pos: r.Pos})
		out = append(out, nr)
	}
	return out, origins
}

// envRules compiles access.env; an undeclared list is RFD 075's minimal
// environment, for the same reason as netRules.
func envRules(a *config.Access, origins []artifact.RuleOrigin) ([]policy.EnvRule, []artifact.RuleOrigin) {
	if len(a.Env) == 0 {
		return policy.Default().Env, origins
	}
	out := make([]policy.EnvRule, 0, len(a.Env))
	for _, r := range a.Env {
		origins = append(origins, artifact.RuleOrigin{Kind: "env", Index: len(out), Pos: r.Pos})
		out = append(out, policy.EnvRule{Name: r.Name, Read: r.Read != nil && *r.Read})
	}
	return out, origins
}

func configRules(a *config.Access, origins []artifact.RuleOrigin) ([]policy.ConfigRule, []artifact.RuleOrigin) {
	out := make([]policy.ConfigRule, 0, len(a.Config))
	for _, r := range a.Config {
		cr := policy.ConfigRule{Path: r.Path, Read: r.Read != nil && *r.Read, Delete: r.Delete != nil && *r.Delete, Apply: "ask"}
		switch w := r.Write.(type) {
		case bool:
			if w {
				cr.Write = policy.ConfigWriteAllow
			}
		case string:
			if w == string(policy.ConfigWriteInsecureAllow) {
				cr.Write = policy.ConfigWriteInsecureAllow
			}
		}
		if r.Apply != nil {
			cr.Apply = *r.Apply
		}
		origins = append(origins, artifact.RuleOrigin{Kind: "config", Index: len(out), Pos: r.Pos})
		out = append(out, cr)
	}
	return out, origins
}

func commandRules(a *config.Access, origins []artifact.RuleOrigin) (map[string]policy.CommandRule, []artifact.RuleOrigin) {
	if a.Commands == nil {
		return nil, origins
	}
	out := make(map[string]policy.CommandRule, len(a.Commands))
	for _, p := range slices.Sorted(maps.Keys(a.Commands)) {
		r := a.Commands[p]
		out[p] = policy.CommandRule{Args: r.Args, Envs: r.Envs}
		origins = append(origins, artifact.RuleOrigin{Kind: "commands", Key: p, Pos: r.Pos})
	}
	return out, origins
}
