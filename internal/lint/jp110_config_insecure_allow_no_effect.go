package lint

import (
	"fmt"

	"github.com/jp-policy/jp-policy/internal/diag"
)

var ruleJP110 = Rule{
	ID: "JP110", Name: "config-insecure-allow-no-effect", Severity: diag.Warning, Suppressible: true,
	Title: "`write = \"insecure_allow\"` on a config path that is not sensitive",
	Description: "`insecure_allow` only acknowledges a write to a sensitive config path (RFD 078). Elsewhere it behaves exactly like `write = true`, " +
		"and leaving it there trains readers to skim past the word that should make them stop.",
	Fix:   "Write `write = true`.",
	check: checkConfigInsecureAllow,
}

func checkConfigInsecureAllow(p *pass) {
	for _, t := range p.st.sorted {
		if t.Access == nil {
			continue
		}
		for _, r := range t.Access.Config {
			if s, ok := r.Write.(string); !ok || s != "insecure_allow" {
				continue
			}
			if _, ok := sensitiveConfigPath(r.Path); ok {
				continue
			}
			pos := p.valueOf(r.Keys, "write", r.Pos)
			p.reportFix(pos,
				fmt.Sprintf("write = \"insecure_allow\" on config path %q of tool %q has no effect: the path is not sensitive", r.Path, t.Name),
				"use write = true", p.insecureAllowFix(pos))
		}
	}
}

// insecureAllowFix writes `true` over the string, which means the same on
// a path that is not sensitive; TOML and JSON spell it alike.
func (p *pass) insecureAllowFix(pos diag.Position) *diag.Fix {
	src, ok := p.l.Files[pos.File]
	if !ok || pos.EndLine != pos.Line {
		return nil
	}
	line, ok := lineOf(src, pos.Line)
	runes := []rune(line)
	if !ok || pos.EndCol-1 > len(runes) {
		return nil
	}
	switch string(runes[pos.Col-1 : pos.EndCol-1]) {
	case `"insecure_allow"`, `'insecure_allow'`:
		return replaceSpan("write = true", pos, "true")
	}
	return nil
}
