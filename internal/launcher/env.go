package launcher

import (
	"github.com/jp-policy/jp-policy/internal/emit"
	"github.com/jp-policy/jp-policy/internal/execcore"
	"github.com/jp-policy/jp-policy/policy"
)

// The environment filter is execcore's, shared with jp-policy-exec; these
// adapt the manifests' emit.Env.

func coreEnv(env emit.Env) execcore.Env { return execcore.Env{Minimal: env.Minimal, Rules: env.Rules} }

// FilterEnv is execcore.FilterEnv for a manifest's allowlist.
func FilterEnv(environ []string, env emit.Env, cmd *policy.CommandRule) []string {
	return execcore.FilterEnv(environ, coreEnv(env), cmd)
}

// FilterEnvFold is execcore.FilterEnvFold for a manifest's allowlist.
func FilterEnvFold(environ []string, env emit.Env, cmd *policy.CommandRule) []string {
	return execcore.FilterEnvFold(environ, coreEnv(env), cmd)
}

func withTerm(env, environ []string, rules []policy.EnvRule) []string {
	return execcore.WithTerm(env, environ, rules)
}
