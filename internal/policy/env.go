package policy

import (
	"errors"
	"fmt"
	"strings"
)

// ValidateEnvName checks an env rule name: non-empty, no '=' or NUL, and
// '*' only as the final byte (the prefix sentinel of RFD 076).
func ValidateEnvName(name string) error {
	if name == "" {
		return errors.New("env name is empty")
	}
	if i := strings.IndexAny(name, "=\x00"); i >= 0 {
		return fmt.Errorf("env name %q contains %q, which no variable name can", name, name[i])
	}
	if i := strings.IndexByte(name, '*'); i >= 0 && i != len(name)-1 {
		return fmt.Errorf("env name %q has '*' before the end; '*' is only allowed as a trailing prefix marker", name)
	}
	return nil
}

// validateEnvTarget checks a variable name asked about: a rule name
// without the prefix marker.
func validateEnvTarget(name string) error {
	if name == "" {
		return errors.New("variable name is empty")
	}
	if strings.ContainsAny(name, "=*\x00") {
		return errors.New("a variable name cannot contain '=', '*' or NUL")
	}
	return nil
}

// MatchEnv returns the env rule that governs name, and whether it grants
// read. Specificity is the byte length of the rule's literal part; at
// equal length an exact rule beats a prefix rule; remaining ties go to the
// last rule. No match is (nil, false). Malformed rules (see
// ValidateEnvName) never match. It does not allocate.
func MatchEnv(rules []EnvRule, name string) (rule *EnvRule, ok bool) {
	best, bestScore := -1, -1
	for i := range rules {
		n := rules[i].Name
		var score int
		if strings.HasSuffix(n, "*") {
			lit := n[:len(n)-1]
			if strings.IndexByte(lit, '*') >= 0 || !strings.HasPrefix(name, lit) {
				continue
			}
			score = 2 * len(lit)
		} else {
			if n != name || n == "" {
				continue
			}
			score = 2*len(n) + 1
		}
		if score >= bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		return nil, false
	}
	return &rules[best], rules[best].Read
}

// NameMatches applies RFD 076's env name syntax to a name list (the
// minimal set, a command's envs): a trailing '*' makes the rest a prefix,
// anything else is exact.
func NameMatches(pattern, name string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(name, prefix)
	}
	return pattern == name
}
