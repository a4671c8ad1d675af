package emit

import "github.com/jp-policy/jp-policy/internal/policy"

// Env is a manifest's environment allowlist, the same on every platform
// that filters the environment (landlock and winjob manifests). A
// variable reaches the child when the policy's env rules (RFD 076
// matching: longest literal wins, exact beats prefix) allow it, or when
// no env rule matches it and it is in Minimal (RFD 075's minimal set,
// policy.MinimalEnv, plus what the platform needs to start a process at
// all; a trailing '*' marks a prefix). An explicit `read = false` rule
// therefore removes even a minimal variable: the user's word is never
// widened. Windows compares names case-insensitively.
type Env struct {
	Minimal []string         `json:"minimal"`
	Rules   []policy.EnvRule `json:"rules"`
}
