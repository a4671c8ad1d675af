package diag

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Position is a place in a config file. Line and Col are 1-based and count
// Unicode code points, as editors and SARIF's "unicodeCodePoints" do; a
// zero Line means "the file as a whole" (for example a file that could not
// be read at all).
//
// EndLine and EndCol, when set, close the span that starts at Line and Col
// (exclusive, like go/analysis's Diagnostic.End): the parser fills them for
// every value it reads, so carets and SARIF regions cover exactly what was
// written without re-reading the file. Zero means the extent is unknown.
type Position struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	EndLine int    `json:"end_line,omitempty"`
	EndCol  int    `json:"end_col,omitempty"`
}

// Start returns p without its end, for comparing where two findings begin.
func (p Position) Start() Position {
	p.EndLine, p.EndCol = 0, 0
	return p
}

// HasEnd reports whether p carries a usable end after its start.
func (p Position) HasEnd() bool {
	return p.Line > 0 && p.Col > 0 && p.EndLine > 0 && p.EndCol > 0 &&
		(p.EndLine > p.Line || (p.EndLine == p.Line && p.EndCol > p.Col))
}

// IsZero reports whether the position names no file.
func (p Position) IsZero() bool { return p.File == "" }

// String renders file:line:col, omitting the parts that are unknown.
func (p Position) String() string {
	switch {
	case p.File == "":
		return "<unknown>"
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	default:
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
	}
}

// Severity orders findings. Errors stop `compile` and make `lint` exit 1.
type Severity int

const (
	Info Severity = iota
	Warning
	Error
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	default:
		return "info"
	}
}

// MarshalText makes severities render as words in JSON output.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText is the inverse of MarshalText.
func (s *Severity) UnmarshalText(b []byte) error {
	switch string(b) {
	case "error":
		*s = Error
	case "warning":
		*s = Warning
	case "info":
		*s = Info
	default:
		return fmt.Errorf("unknown severity %q", b)
	}
	return nil
}

// Related points at a second place that takes part in a finding, for
// example the earlier layer a rule overrides.
type Related struct {
	Pos     Position `json:"pos"`
	Message string   `json:"message"`
}

// Diagnostic is one finding.
type Diagnostic struct {
	Pos      Position  `json:"pos"`
	Severity Severity  `json:"severity"`
	Rule     string    `json:"rule,omitempty"` // stable ID such as JP101; empty for loader errors
	Message  string    `json:"message"`
	Help     string    `json:"help,omitempty"` // how to fix it
	Related  []Related `json:"related,omitempty"`
	// Fix, when set, is a mechanical fix that `lint --fix` applies: an
	// edit of the file's text that keeps everything else as written.
	Fix *Fix `json:"fix,omitempty"`
}

// Fix is a suggested fix, as go/analysis's SuggestedFix: what it does and
// the text edits that do it. Applying it must leave a file that parses
// and no longer has the finding.
type Fix struct {
	Message string     `json:"message"`
	Edits   []TextEdit `json:"edits"`
}

// TextEdit replaces the text of one span (Pos to its EndLine/EndCol,
// exclusive; code-point columns) with NewText. An empty span inserts.
type TextEdit struct {
	Pos     Position `json:"pos"`
	NewText string   `json:"new_text"`
}

// String renders the one-line form `file:line:col: severity: message [ID]`.
func (d Diagnostic) String() string {
	var b strings.Builder
	b.WriteString(d.Pos.String())
	b.WriteString(": ")
	b.WriteString(d.Severity.String())
	b.WriteString(": ")
	b.WriteString(d.Message)
	if d.Rule != "" {
		b.WriteString(" [")
		b.WriteString(d.Rule)
		b.WriteString("]")
	}
	return b.String()
}

// Error lets a diagnostic travel as an error value.
func (d Diagnostic) Error() string { return d.String() }

// Compare orders diagnostics by file, line, column, rule and message: the
// one order every command prints findings in.
func Compare(a, b Diagnostic) int {
	return cmp.Or(
		cmp.Compare(a.Pos.File, b.Pos.File),
		cmp.Compare(a.Pos.Line, b.Pos.Line),
		cmp.Compare(a.Pos.Col, b.Pos.Col),
		cmp.Compare(a.Rule, b.Rule),
		cmp.Compare(a.Message, b.Message),
	)
}

// Sort orders ds by Compare, keeping equal findings in their order.
func Sort(ds []Diagnostic) { slices.SortStableFunc(ds, Compare) }

// List is a set of diagnostics that is itself an error when it holds at
// least one Error-severity finding.
type List []Diagnostic

// HasErrors reports whether any finding is an error.
func (l List) HasErrors() bool {
	for _, d := range l {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

func (l List) Error() string {
	parts := make([]string, len(l))
	for i, d := range l {
		parts[i] = d.String()
	}
	return strings.Join(parts, "\n")
}
