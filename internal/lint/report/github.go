package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/termstyle"
)

// GitHub writes GitHub Actions workflow commands, one per finding:
//
//	::error file=.jp/config.toml,line=12,col=8,endLine=12,endColumn=14,title=JP101::message
//
// File names are relative to Options.Base, which the caller sets to the
// repository root (RepoRoot): the Actions UI resolves them against the
// checkout.
//
// The help text follows the message on a second line of the annotation.
func GitHub(w io.Writer, ds []diag.Diagnostic, o Options) error {
	bw := bufio.NewWriter(w)
	for _, d := range ds {
		cmd := "notice"
		switch d.Severity {
		case diag.Error:
			cmd = "error"
		case diag.Warning:
			cmd = "warning"
		}
		props := []string{"file=" + escapeProperty(o.display(d.Pos.File))}
		if d.Pos.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", d.Pos.Line))
		}
		if d.Pos.Col > 0 {
			props = append(props, fmt.Sprintf("col=%d", d.Pos.Col))
		}
		if d.Pos.HasEnd() {
			// The parser's span, so the annotation underlines the value.
			props = append(props, fmt.Sprintf("endLine=%d", d.Pos.EndLine), fmt.Sprintf("endColumn=%d", d.Pos.EndCol))
		}
		if d.Rule != "" {
			props = append(props, "title="+escapeProperty(d.Rule))
		}
		var msg strings.Builder
		msg.WriteString(termstyle.Safe(d.Message))
		if d.Help != "" {
			msg.WriteString("\nhelp: " + termstyle.Safe(d.Help))
		}
		for _, r := range d.Related {
			msg.WriteString("\nnote: " + relatedText(o, r))
		}
		fmt.Fprintf(bw, "::%s %s::%s\n", cmd, strings.Join(props, ","), escapeData(msg.String()))
	}
	return bw.Flush()
}

// escapeData and escapeProperty follow the escaping of @actions/core, so
// a message holding "%", a newline, or (in properties) ":" or "," cannot
// end the command early or inject a second one.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
