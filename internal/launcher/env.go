package launcher

import "github.com/jp-policy/jp-policy/internal/plan"

// envOf is a manifest's allowlist as the environment filter's Env.
func envOf(env plan.Env) Env { return Env{Minimal: env.Minimal, Rules: env.Rules} }
