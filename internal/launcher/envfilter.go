package launcher

import (
	"slices"
	"strings"

	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// FilterEnv returns the environment the child receives: the entries of
// environ whose names the allowlist allows, in their original order and
// byte for byte. When the command has a rule with `envs`, variables the
// env rules granted reach it only when `envs` lists them too; the minimal
// set is the floor every program gets (RFD 075) and is not narrowed.
// Entries without '=' are dropped.
func FilterEnv(environ []string, env plan.Env, cmd *policy.CommandRule) []string {
	out := make([]string, 0, len(env.Minimal)+len(env.Rules)+2)
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if !env.Allows(name) {
			continue
		}
		if cmd != nil && cmd.Envs != nil && !env.FromMinimal(name) && !listed(cmd.Envs, name) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func listed(patterns []string, name string) bool {
	for _, p := range patterns {
		if policy.NameMatches(p, name) {
			return true
		}
	}
	return false
}

// FilterEnvFold is FilterEnv for Windows, where variable names compare
// case-insensitively: rule, minimal and envs names and the variables are
// matched upper-cased, and the entries pass through unchanged.
func FilterEnvFold(environ []string, env plan.Env, cmd *policy.CommandRule) []string {
	up := plan.Env{Minimal: upperAll(env.Minimal)}
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

// WithTerm passes TERM, an addition of exec's to RFD 075's minimal set:
// without it a tool's programs fall back to a dumb terminal (no colours,
// pagers and editors that cannot draw), and it names a terminal type, not
// a secret. A rule with `read = false` on it still removes it; one that
// grants it has let it through already.
func WithTerm(env, environ []string, rules []policy.EnvRule) []string {
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

// WithVar sets name=value in env, replacing any earlier value.
func WithVar(env []string, name, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k != name {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
}
