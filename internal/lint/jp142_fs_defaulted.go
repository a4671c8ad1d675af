package lint

import (
	"fmt"
	"strings"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/tomlquote"
)

var ruleJP142 = Rule{
	ID: "JP142", Name: "fs-defaulted", Severity: diag.Warning, Suppressible: true,
	Title: "A tool declares `access.net` or `access.env` but no `access.fs`, so it may write the whole workspace",
	Description: "RFD 076 defaults each access type on its own: a tool whose `access` declares `net` or `env` but not `fs` gets the fs default, " +
		"which grants the whole workspace, every capability (confined to the workspace). " +
		"An \"API tool\" declared with only its hosts therefore may also create, change and delete every file of the workspace, which is rarely what its author meant.",
	Fix: "Declare the files the tool needs in `access.fs`; for a tool that needs none, write one rule that grants nothing: " +
		"`[[conversation.tools.NAME.access.fs]]` with `path = \".\"` and no capability. Suppress with the reason if the tool should write the workspace.",
	check: checkFSDefaulted,
}

func checkFSDefaulted(p *pass) {
	for _, t := range p.st.sorted {
		a := t.Access
		src := strings.TrimSpace(t.Source.Value)
		if a == nil || len(a.FSDecl) > 0 || (len(a.NetDecl) == 0 && len(a.EnvDecl) == 0) ||
			!(src == "local" || strings.HasPrefix(src, "local.")) {
			continue
		}
		declared := "net"
		if len(a.NetDecl) == 0 {
			declared = "env"
		} else if len(a.EnvDecl) > 0 {
			declared = "net and env"
		}
		p.report(a.Pos,
			fmt.Sprintf("tool %q declares access.%s but not access.fs, so the compiled policy %s", t.Name, declared, EnforcedWhenEmpty("fs")),
			fmt.Sprintf("declare the files it needs in access.fs; for no files at all, add [[conversation.tools.%s.access.fs]] with path = \".\" and no capability", tomlquote.Key(t.Name)))
	}
}
