package launcher

import (
	"slices"
	"strings"

	"github.com/jp-policy/jp-policy/internal/emit"

	"github.com/jp-policy/jp-policy/policy"
)

// envAllowed decides one variable name against the manifest's allowlist:
// the env rules decide when one matches (RFD 076: longest literal wins,
// exact beats prefix at equal length); otherwise the minimal set does.
// An explicit `read = false` rule therefore removes even PATH.
func envAllowed(env emit.Env, name string) bool {
	if rule, allowed := policy.MatchEnv(env.Rules, name); rule != nil {
		return allowed
	}
	for _, m := range env.Minimal {
		if nameMatches(m, name) {
			return true
		}
	}
	return false
}

// nameMatches applies RFD 076's env name syntax: a trailing '*' makes the
// rest a prefix, anything else is exact.
func nameMatches(pattern, name string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(name, prefix)
	}
	return pattern == name
}

// FilterEnv returns the environment the child receives: the entries of
// environ whose names the manifest allows, in their original order and
// byte for byte. When the command has a rule with `envs`, variables the
// env rules granted reach it only when `envs` lists them too; the minimal
// set is the floor every program gets (RFD 075) and is not narrowed.
// Entries without '=' are dropped.
func FilterEnv(environ []string, env emit.Env, cmd *policy.CommandRule) []string {
	out := make([]string, 0, len(env.Minimal)+len(env.Rules))
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if !envAllowed(env, name) {
			continue
		}
		if cmd != nil && cmd.Envs != nil && !inMinimal(env, name) && !listed(cmd.Envs, name) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// inMinimal reports whether name reaches the child through the minimal
// set rather than through an env rule.
func inMinimal(env emit.Env, name string) bool {
	if rule, _ := policy.MatchEnv(env.Rules, name); rule != nil {
		return false
	}
	for _, m := range env.Minimal {
		if nameMatches(m, name) {
			return true
		}
	}
	return false
}

func listed(patterns []string, name string) bool {
	for _, p := range patterns {
		if nameMatches(p, name) {
			return true
		}
	}
	return false
}

// FilterEnvFold is FilterEnv for Windows, where variable names compare
// case-insensitively: rule, minimal and envs names and the variables are
// matched upper-cased, and the entries pass through unchanged.
func FilterEnvFold(environ []string, env emit.Env, cmd *policy.CommandRule) []string {
	up := emit.Env{Minimal: upperAll(env.Minimal)}
	for _, r := range env.Rules {
		up.Rules = append(up.Rules, policy.EnvRule{Name: strings.ToUpper(r.Name), Read: r.Read})
	}
	var upCmd *policy.CommandRule
	if cmd != nil {
		upCmd = &policy.CommandRule{Args: cmd.Args}
		if cmd.Envs != nil {
			upCmd.Envs = upperAll(cmd.Envs)
		}
	}
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		// Per-drive cwd entries ("=C:=C:\x") have no name before the
		// first '='; they are never in an allowlist.
		if len(FilterEnv([]string{strings.ToUpper(name) + "="}, up, upCmd)) == 1 {
			out = append(out, kv)
		}
	}
	return out
}

func upperAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ToUpper(s)
	}
	return out
}

// withTerm passes TERM, an addition of exec's to RFD 075's minimal set:
// without it a tool's programs fall back to a dumb terminal (no colours,
// pagers and editors that cannot draw), and it names a terminal type, not
// a secret. A rule with `read = false` on it still removes it; one that
// grants it has let it through already.
func withTerm(env, environ []string, rules []policy.EnvRule) []string {
	if slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "TERM=") }) {
		return env
	}
	if r, _ := policy.MatchEnv(rules, "TERM"); r != nil && !r.Read {
		return env
	}
	for _, kv := range environ {
		if strings.HasPrefix(kv, "TERM=") {
			return append(env, kv)
		}
	}
	return env
}
