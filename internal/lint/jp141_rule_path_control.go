package lint

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/jp-policy/jp-policy/internal/diag"
)

var ruleJP141 = Rule{
	ID: "JP141", Name: "rule-path-control", Severity: diag.Warning, Suppressible: true,
	Title: "An fs rule path holds control or invisible formatting characters",
	Description: "A rule path with a newline, an escape character, another control character, or an invisible formatting character (a bidirectional override, a zero-width space) is legal on most file systems, " +
		"but nobody reviewing the policy can read it as written: on a terminal or in a pull request it can forge lines or hide what it names. " +
		"jp-policy escapes such characters everywhere it prints them (as `\\n`, `\\x1b`, `\\u202e`); this rule says the path holds them, so the rule is reviewed for what it is.",
	Fix:   "Rename the file or directory to a name without control characters and update the rule, or suppress with the reason the name must stay.",
	check: checkRulePathControl,
}

func checkRulePathControl(p *pass) {
	for _, t := range p.st.sorted {
		if t.Access == nil {
			continue
		}
		for i := range t.Access.FS {
			r := &t.Access.FS[i]
			if !hasControl(r.Path) {
				continue
			}
			p.report(p.valueOf(r.Keys, "path", r.Pos),
				fmt.Sprintf("the path of fs rule %d of tool %q holds control or invisible characters: %q", i, t.Name, r.Path),
				"rename it to a name without them and update the rule, or suppress with the reason it must stay")
		}
	}
}

// hasControl reports whether s holds a character termstyle.Safe escapes:
// a control character, a line or paragraph separator, or a formatting
// character.
func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool {
		return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
	})
}
