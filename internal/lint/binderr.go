package lint

import (
	"errors"
	"fmt"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// reportBindErrors reports every fs rule whose binding failed with kind,
// with the caret under key (falling back to the rule).
func reportBindErrors(p *pass, kind policy.RuleErrorKind, key, help string) {
	for _, tf := range p.st.tools {
		for _, b := range tf.rules {
			if b.err == nil || b.err.Kind != kind {
				continue
			}
			p.report(p.valueOf(b.rule.Keys, key, b.rule.Pos),
				fmt.Sprintf("fs rule %q of tool %q: %s", b.rule.Path, tf.tool.Name, b.err.Msg), help)
		}
	}
}

// bindRules names the catalogue rule of each way binding an fs rule can
// fail, so the compiler, which binds again on its own, reports a failure
// under the same ID as lint. (A switch, not a package-level map: that
// would be built at every jp-policy start.)
func bindRules(k policy.RuleErrorKind) (string, bool) {
	switch k {
	case policy.RuleExternalInsideWorkspace:
		return "JP101", true
	case policy.RuleNotWorkspaceRelative:
		return "JP103", true
	case policy.RuleNestedUnderExternal:
		return "JP104", true
	case policy.RuleBrokenLink:
		return "JP105", true
	case policy.RuleInvalid:
		return "JP120", true
	}
	return "", false
}

// BindErrorRule returns the rule ID lint reports err under (a
// *policy.RuleError from binding an fs rule), or JP120 for any other
// failure to bind.
func BindErrorRule(err error) string {
	if re, ok := errors.AsType[*policy.RuleError](err); ok {
		if id, ok := bindRules(re.Kind); ok {
			return id
		}
	}
	return "JP120"
}
