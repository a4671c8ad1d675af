package report

import (
	"encoding/json"
	"io"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/lint"
)

// Finding is the JSON form of one finding; docs/rules.md documents every
// field. File names are shown as in the text format (relative to the
// working directory, ~/ for the home directory, else absolute).
type Finding struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	EndLine  int    `json:"end_line,omitempty"`
	EndCol   int    `json:"end_col,omitempty"`
	Severity string `json:"severity"`
	Rule     string `json:"rule,omitempty"`
	Title    string `json:"title,omitempty"`
	Message  string `json:"message"`
	Help     string `json:"help,omitempty"`
	// Fix says what `lint --fix` would do, when the finding has a
	// mechanical fix.
	Fix     string        `json:"fix,omitempty"`
	Related []RelatedJSON `json:"related,omitempty"`
}

// RelatedJSON is a second place that takes part in a finding.
type RelatedJSON struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Message string `json:"message"`
}

// JSON writes one Finding object per line (JSON Lines), so output can be
// streamed and filtered line by line; no findings write nothing.
func JSON(w io.Writer, ds []diag.Diagnostic, o Options) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, d := range ds {
		f := Finding{
			File: o.display(d.Pos.File), Line: d.Pos.Line, Col: d.Pos.Col,
			Severity: d.Severity.String(), Rule: d.Rule, Message: d.Message, Help: d.Help,
		}
		if d.Pos.HasEnd() {
			f.EndLine, f.EndCol = d.Pos.EndLine, d.Pos.EndCol
		}
		if d.Fix != nil {
			f.Fix = d.Fix.Message
		}
		if r, ok := lint.Lookup(d.Rule); ok {
			f.Title = r.Title
		}
		for _, r := range d.Related {
			f.Related = append(f.Related, RelatedJSON{File: o.display(r.Pos.File), Line: r.Pos.Line, Col: r.Pos.Col, Message: r.Message})
		}
		if err := enc.Encode(f); err != nil {
			return err
		}
	}
	return nil
}
