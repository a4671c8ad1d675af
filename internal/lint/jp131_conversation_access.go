package lint

import "github.com/jp-policy/jp-policy/internal/diag"

// ruleJP131 is reported by `jp-policy lint --conversations`, which
// compiles the policy JP applies when it continues each stored
// conversation and compares it with what the files compile to now
// (cmd/jp-policy); lint's own checks see one merged config and have
// nothing to compare.
var ruleJP131 = Rule{
	ID: "JP131", Name: "conversation-access-differs", Severity: diag.Error, Suppressible: false,
	Origin: "`jp-policy lint --conversations`",
	Title:  "A stored conversation would run a tool with other access than the config files grant now",
	Description: "When JP continues a conversation it merges the config stored with it between the files (and `JP_CFG_*`) and `--cfg` (`partial_with_conversation`), and the stored lists come back with `strategy = \"replace\"`: a tool's `access.fs` is then the one stored when the conversation was last run, whatever the files say now, and so are its `source`, `run` and `enable`. " +
		"A rule tightened in the files since does not reach the old conversation. The finding names the conversation, each tool whose compiled access differs and what it gains (an error) or loses (a warning, when it only narrows).",
	Fix: "Start a new conversation for work under the current rules, or update the stored config (`jp config set` with the conversation as target) or remove the conversation; `jp-policy compile --conversation ID` compiles exactly what JP would apply to it.",
}
