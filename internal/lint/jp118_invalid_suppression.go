package lint

import "github.com/jp-policy/jp-policy/internal/diag"

const invalidSuppressionID = "JP118"

var ruleJP118 = Rule{
	ID: invalidSuppressionID, Name: "invalid-suppression", Severity: diag.Warning,
	Title: "A `# jp-policy: ignore` comment is malformed, has no reason, or names a rule that cannot be suppressed",
	Description: "A suppression must say which rule it silences and why (`# jp-policy: ignore JP107 -- fixtures hold fake keys`), so a reviewer can judge it. " +
		"A comment without a reason, naming an unknown rule or a rule that may not be suppressed, or followed by nothing, is not applied, and the findings it meant to hide are still reported.",
	Fix:   "Write `# jp-policy: ignore ID -- reason` on the line directly above the table or rule, with a rule that `jp-policy rules` marks suppressible.",
	check: func(*pass) {}, // reported while suppressions are parsed
}
