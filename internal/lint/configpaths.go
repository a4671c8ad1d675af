package lint

import "github.com/jp-policy/jp-policy/internal/policy"

// The sensitive and map-valued config path tables of RFD 078 live in
// package policy, which refuses the same rules in any access object; lint
// reports them on config with positions (JP108, JP109, JP110).
var (
	sensitiveConfigPath = policy.SensitiveConfigPath
	wildcardNotMap      = policy.WildcardNotMap
)
