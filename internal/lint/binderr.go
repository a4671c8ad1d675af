package lint

import (
	"fmt"

	"github.com/jp-policy/jp-policy/policy"
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
