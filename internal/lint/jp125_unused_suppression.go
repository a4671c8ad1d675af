package lint

import "github.com/jp-policy/jp-policy/internal/diag"

const unusedSuppressionID = "JP125"

var ruleJP125 = Rule{
	ID: unusedSuppressionID, Name: "unused-suppression", Severity: diag.Warning, Suppressible: true,
	Title: "A `# jp-policy: ignore` comment hides no finding",
	Description: "A suppression that no longer hides anything (the rule was fixed, the table moved, or the comment names the wrong rule) is noise that a reader must still judge, and it would silently hide a later finding the author never saw (ruff's RUF100). " +
		"Suppressions of JP105, JP106 and JP124 are never reported: those findings depend on this machine's links and approvals, so the comment may be needed elsewhere.",
	Fix:   "Remove the comment, or the rule IDs it does not need (`jp-policy lint --fix` does); `--ignore JP125` turns the check off.",
	check: func(*pass) {}, // reported once suppressions have been applied
}
