package lint

import (
	"fmt"
	"strings"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/execplan"
)

var ruleJP140 = Rule{
	ID: "JP140", Name: "tool-name-refused", Severity: diag.Error, Suppressible: false,
	Title: "A local tool's name cannot name its files in the compiled policy",
	Description: "compile writes a manifest and an exec plan per local tool, named after the tool, so a local tool's name must be a file name on every platform: " +
		"ASCII letters, digits, `_`, `.` and `-`, not starting with `.` or `-`. " +
		"A name such as `fmt/go`, one with spaces, or one holding control characters (which would also reach terminals and reports as escape sequences) makes compile fail; " +
		"this rule reports it where the name is written, so lint fails where compile would.",
	Fix:   "Rename the tool to letters, digits, `_`, `.` and `-` (for example `fmt_go` for `fmt/go`), in every layer that configures it.",
	check: checkToolNameRefused,
}

func checkToolNameRefused(p *pass) {
	for _, t := range p.st.sorted {
		src := strings.TrimSpace(t.Source.Value)
		if !(src == "local" || strings.HasPrefix(src, "local.")) || execplan.ToolFileNameOK(t.Name) {
			continue
		}
		p.report(t.Pos,
			fmt.Sprintf("local tool name %q cannot name the tool's files in the compiled policy, so compile refuses it", t.Name),
			"use only ASCII letters, digits, `_`, `.` and `-`, not starting with `.` or `-` (for example "+suggestToolName(t.Name)+")")
	}
}

// suggestToolName maps every character compile refuses to `_`.
func suggestToolName(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-'
		if !ok || (b.Len() == 0 && (c == '.' || c == '-')) {
			c = '_'
		}
		if c >= 0x80 {
			// one `_` per character, not per byte
			for i+1 < len(name) && name[i+1]&0xc0 == 0x80 {
				i++
			}
		}
		b.WriteByte(c)
	}
	if b.Len() == 0 {
		return "`tool`"
	}
	return "`" + b.String() + "`"
}
