package policy

import (
	"errors"
	"fmt"
	"github.com/jp-policy/jp-policy/internal/rulematch"
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
	return rulematch.MatchEnv(rules, name)
}
