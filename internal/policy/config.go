package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Config operations of RFD 078.
const (
	ConfigRead    = "read"
	ConfigWriteOp = "write"
	ConfigDelete  = "delete"
)

// Apply modes of RFD 078.
const (
	ApplyAsk        = "ask"
	ApplyUnattended = "unattended"
)

// MarshalJSON writes false, true or "insecure_allow", as RFD 078 spells it.
func (w ConfigWrite) MarshalJSON() ([]byte, error) {
	switch w {
	case ConfigWriteDeny:
		return []byte("false"), nil
	case ConfigWriteAllow:
		return []byte("true"), nil
	case ConfigWriteInsecureAllow:
		return []byte(`"insecure_allow"`), nil
	}
	return nil, fmt.Errorf("invalid config write value %q", string(w))
}

// UnmarshalJSON accepts false, true, null (false) and "insecure_allow".
func (w *ConfigWrite) UnmarshalJSON(b []byte) error {
	switch strings.TrimSpace(string(b)) {
	case "false", "null":
		*w = ConfigWriteDeny
	case "true":
		*w = ConfigWriteAllow
	case `"insecure_allow"`:
		*w = ConfigWriteInsecureAllow
	default:
		return fmt.Errorf("config write must be true, false or \"insecure_allow\", not %s", b)
	}
	return nil
}

// Allows reports whether the value grants write.
func (w ConfigWrite) Allows() bool {
	return w == ConfigWriteAllow || w == ConfigWriteInsecureAllow
}

// EffectiveApply is the rule's apply mode with RFD 078's default, "ask".
func (r ConfigRule) EffectiveApply() string {
	if r.Apply == "" {
		return ApplyAsk
	}
	return r.Apply
}

// Grants reports whether the rule grants op (read, write or delete); the
// three are independent.
func (r ConfigRule) GrantsOp(op string) bool {
	switch op {
	case ConfigRead:
		return r.Read
	case ConfigWriteOp:
		return r.Write.Allows()
	case ConfigDelete:
		return r.Delete
	}
	return false
}

// ValidateConfigPath checks a config rule path: dot-separated non-empty
// segments, where '*' may only be a whole segment (it matches exactly one
// segment).
func ValidateConfigPath(p string) error {
	if p == "" {
		return errors.New("config path is empty")
	}
	for s := range strings.SplitSeq(p, ".") {
		if s == "" {
			return fmt.Errorf("config path %q has an empty segment", p)
		}
		if strings.IndexByte(s, '*') >= 0 && s != "*" {
			return fmt.Errorf("config path %q: '*' must be a whole segment", p)
		}
		if strings.ContainsAny(s, " \t\n\x00") {
			return fmt.Errorf("config path %q: segment %q contains whitespace or NUL", p, s)
		}
	}
	return nil
}

func validateConfigOp(op string) error {
	switch op {
	case ConfigRead, ConfigWriteOp, ConfigDelete:
		return nil
	}
	return fmt.Errorf("config operation %q is not read, write or delete", op)
}

func validateApply(a string) error {
	switch a {
	case "", ApplyAsk, ApplyUnattended:
		return nil
	}
	return fmt.Errorf("apply %q is not \"ask\" or \"unattended\"", a)
}

// MatchConfig returns the index of the rule governing the config path
// target (no wildcards), or -1. Specificity is the rule's segment count;
// '*' matches one segment; ties go to the last rule.
func MatchConfig(rules []ConfigRule, target string) int {
	best, bestN := -1, -1
	for i := range rules {
		n, ok := configPrefix(rules[i].Path, target)
		if ok && n >= bestN {
			best, bestN = i, n
		}
	}
	return best
}

// configPrefix reports whether rule's segments prefix target's, and how
// many segments rule has.
func configPrefix(rule, target string) (int, bool) {
	if rule == "" {
		return 0, false
	}
	n := 0
	for rule != "" {
		var rs, ts string
		rs, rule = cutDot(rule)
		if target == "" {
			return 0, false
		}
		ts, target = cutDot(target)
		if rs != "*" && rs != ts {
			return 0, false
		}
		n++
	}
	return n, true
}

func cutDot(s string) (string, string) {
	if before, after, ok := strings.Cut(s, "."); ok {
		return before, after
	}
	return s, ""
}

// configRuleJSON is ConfigRule as `check` prints it, with apply defaulted.
func configRuleWire(r ConfigRule) ConfigRule {
	r.Apply = r.EffectiveApply()
	return r
}

var _ json.Marshaler = ConfigWrite("")
