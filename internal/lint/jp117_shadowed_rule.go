package lint

import (
	"fmt"
	"strings"

	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/policy"
)

var ruleJP117 = Rule{
	ID: "JP117", Name: "shadowed-rule", Severity: diag.Warning, Suppressible: true,
	Title: "An earlier rule is dead: a later rule has the same canonical path (or host, name, config path)",
	Description: "When two rules are equally specific, the last one wins and applies in full (RFD 076); capabilities are not combined. " +
		"An fs rule with the same canonical path as a later one (say `src` and `./src/`, perhaps in different layers) never decides anything, and neither does an env rule with the same name, " +
		"a config rule with the same path, or a net rule with the same host, scheme, port and path prefix. Usually a later layer meant to add to the earlier rule and replaced it instead.",
	Fix:   "Delete the earlier rule, or merge its capabilities into the later one.",
	check: checkShadowed,
}

func checkShadowed(p *pass) {
	shadow := func(toolName, kind, what string, earlier, later diag.Position) {
		p.report(earlier, fmt.Sprintf("%s rule %s of tool %q is dead: a later rule with the same %s replaces it", kind, what, toolName, shadowWhat(kind)),
			"delete this rule, or merge its capabilities into the later one",
			diag.Related{Pos: later, Message: "overridden by"})
	}
	for _, tf := range p.st.tools {
		last := map[string]int{}
		for i, b := range tf.rules {
			if b.err == nil {
				last[fsShadowKey(b)] = i
			}
		}
		for i, b := range tf.rules {
			if b.err != nil {
				continue
			}
			if j := last[fsShadowKey(b)]; j != i {
				later := tf.rules[j].rule
				shadow(tf.tool.Name, "fs", fmt.Sprintf("%q", b.rule.Path), p.valueOf(b.rule.Keys, "path", b.rule.Pos), p.valueOf(later.Keys, "path", later.Pos))
			}
		}
	}
	for _, t := range p.st.sorted {
		if t.Access == nil {
			continue
		}
		dupes(t.Access.Env, func(r config.EnvRule) (string, bool) {
			return r.Name, policy.ValidateEnvName(r.Name) == nil
		}, func(e, l config.EnvRule) {
			shadow(t.Name, "env", fmt.Sprintf("%q", e.Name), p.valueOf(e.Keys, "name", e.Pos), p.valueOf(l.Keys, "name", l.Pos))
		})
		dupes(t.Access.Config, func(r config.ConfigRule) (string, bool) {
			return r.Path, policy.ValidateConfigPath(r.Path) == nil
		}, func(e, l config.ConfigRule) {
			shadow(t.Name, "config", fmt.Sprintf("%q", e.Path), p.valueOf(e.Keys, "path", e.Pos), p.valueOf(l.Keys, "path", l.Pos))
		})
		dupes(t.Access.Net, netShadowKey, func(e, l config.NetRule) {
			shadow(t.Name, "net", fmt.Sprintf("for %q", e.Host), p.valueOf(e.Keys, "host", e.Pos), p.valueOf(l.Keys, "host", l.Pos))
		})
	}
}

func shadowWhat(kind string) string {
	switch kind {
	case "fs":
		return "canonical path"
	case "env":
		return "name"
	case "config":
		return "path"
	}
	return "host, scheme, port and path prefix"
}

func fsShadowKey(b *boundRule) string {
	if b.external {
		return "x:" + b.key
	}
	return "o:" + b.key
}

// netShadowKey is the match key of a valid net rule: normalised host,
// lower-case scheme, port and path prefix without a trailing slash.
func netShadowKey(r config.NetRule) (string, bool) {
	pr, ok := toPolicyNet(r)
	if !ok || policy.ValidateNetRule(pr) != nil {
		return "", false
	}
	h, _ := policy.NormalizeHost(r.Host)
	k := h + "|"
	if r.Scheme != nil {
		k += strings.ToLower(*r.Scheme)
	}
	k += "|"
	if r.Port != nil {
		k += fmt.Sprint(*r.Port)
	}
	k += "|"
	if r.PathPrefix != nil {
		k += strings.TrimRight(*r.PathPrefix, "/")
	}
	return k, true
}

// dupes calls f(earlier, later) for every rule whose key a later rule
// repeats (pairing it with the last such rule, the one that wins).
func dupes[T any](rules []T, key func(T) (string, bool), f func(earlier, later T)) {
	last := map[string]int{}
	for i, r := range rules {
		if k, ok := key(r); ok {
			last[k] = i
		}
	}
	for i, r := range rules {
		k, ok := key(r)
		if !ok {
			continue
		}
		if j := last[k]; j != i {
			f(r, rules[j])
		}
	}
}
