package launcher

import (
	"strings"

	"github.com/jp-policy/jp-policy/policy"
)

// TEMPORARY ADAPTER: package policy is getting MatchEnv / MatchCommand in
// parallel; until they land these local copies implement the RFD 076 /
// RFD 075 semantics so the call sites are final. Replace with the policy
// package's functions once they exist.

// matchEnv returns the decision of the most specific env rule matching
// name, and whether any rule matched. Specificity is the byte length of
// the literal part; at equal length an exact rule beats a prefix rule;
// among equally specific rules of the same kind a deny wins (fail closed).
func matchEnv(rules []policy.EnvRule, name string) (allowed, matched bool) {
	bestLen, bestExact := -1, false
	for _, r := range rules {
		lit, prefix := strings.CutSuffix(r.Name, "*")
		if prefix {
			if !strings.HasPrefix(name, lit) {
				continue
			}
		} else if r.Name != name {
			continue
		}
		exact := !prefix
		switch {
		case len(lit) > bestLen, len(lit) == bestLen && exact && !bestExact:
			bestLen, bestExact, allowed = len(lit), exact, r.Read
		case len(lit) == bestLen && exact == bestExact:
			allowed = allowed && r.Read
		}
		matched = true
	}
	return allowed, matched
}
