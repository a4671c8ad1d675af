package lint

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/jpdirs"
)

var ruleJP106 = Rule{
	ID: "JP106", Name: "external-unapproved", Severity: diag.Warning, Suppressible: true,
	Title: "An external rule's target is not approved here, or the symlink was retargeted since approval",
	Description: "External targets are trusted on first use (RFD D43): the approvals store binds the rule path to the canonical target the user approved. " +
		"Until then, or after the link is pointed somewhere else, the compiler drops the rule and the tool gets no access there. A retargeted link is the case approvals exist to catch: check where it points now before approving. " +
		"An approval recorded by jp-policy holds only in the workspaces that gave it: the store is found through the committed `.jp/.id`, which another repository can copy to inherit approvals, so a binding approved only in another workspace sharing this one's id is reported and dropped until it is approved here. " +
		"A rule that grants nothing (a narrowing, such as `read = false` on a file inside a mount) needs no approval and is never dropped: dropping it would let the broader rule reach what it narrows.",
	Fix:   "Check the target, then run `jp-policy approvals approve RULE_PATH`.",
	check: checkExternalUnapproved,
}

func checkExternalUnapproved(p *pass) {
	for _, tf := range p.st.tools {
		for _, b := range tf.rules {
			if b.err != nil || !b.external || !b.grantsAny() {
				// A rule that grants nothing needs no approval: compile
				// keeps it wherever its link points (it only narrows).
				continue
			}
			stored, elsewhere, found := p.approvedTarget(b)
			pos := p.valueOf(b.rule.Keys, "path", b.rule.Pos)
			help := UnapprovedHelp(b.key)
			tools := []string{tf.tool.Name}
			switch {
			case !found:
				p.report(pos, UnapprovedMessage(b.key, tools, p.st.show(b.abs)), help)
			case filepath.Clean(stored) == b.abs && elsewhere != nil:
				p.report(pos, ApprovedElsewhereMessage(b.key, tools, p.st.show(b.abs), jpdirs.SharingWorkspacesText(elsewhere)), help)
			case filepath.Clean(stored) != b.abs:
				p.report(pos, RetargetedMessage(b.key, tools, p.st.show(stored), p.st.show(b.abs)), help)
			}
		}
	}
}

// The wording of JP106, shared with compile, which reports the same
// finding when it drops the rule (after its prompt), so a user reads one
// message whichever command they ran.

// UnapprovedMessage: the rule's target is not approved.
func UnapprovedMessage(rulePath string, tools []string, target string) string {
	return fmt.Sprintf("external rule %q of %s points at %s, which is not approved; the rule is dropped until it is", rulePath, toolsText(tools), target)
}

// ApprovedElsewhereMessage: approved only in workspaces sharing this one's
// storage (where).
func ApprovedElsewhereMessage(rulePath string, tools []string, target, where string) string {
	return fmt.Sprintf("external rule %q of %s points at %s, which was approved only in %s; the rule is dropped until it is approved in this workspace", rulePath, toolsText(tools), target, where)
}

// RetargetedMessage: the link points elsewhere than the approved target.
func RetargetedMessage(rulePath string, tools []string, approved, target string) string {
	return fmt.Sprintf("external rule %q of %s was approved for %s but the link now points at %s; the rule is dropped until the new target is approved", rulePath, toolsText(tools), approved, target)
}

// UnapprovedHelp is JP106's help.
func UnapprovedHelp(rulePath string) string {
	return fmt.Sprintf("check the target, then run `jp-policy approvals approve %s`", rulePath)
}

func toolsText(tools []string) string {
	if len(tools) == 1 {
		return fmt.Sprintf("tool %q", tools[0])
	}
	q := make([]string, len(tools))
	for i, t := range tools {
		q[i] = fmt.Sprintf("%q", t)
	}
	return "tools " + strings.Join(q, ", ")
}
