package grantdiff

import (
	"encoding/json"
	"fmt"
	"github.com/jp-policy/jp-policy/internal/termstyle"
	"io"
	"strings"
)

// Formats Write accepts.
const (
	FormatText     = "text"
	FormatJSON     = "json"
	FormatMarkdown = "markdown"
)

// Write renders d in format ("text", "json" or "markdown").
func Write(w io.Writer, d *Diff, format string) error {
	switch format {
	case "", FormatText:
		_, err := io.WriteString(w, d.Text())
		return err
	case FormatJSON:
		return writeJSON(w, d)
	case FormatMarkdown:
		_, err := io.WriteString(w, d.Markdown())
		return err
	}
	return fmt.Errorf("unknown format %q (text, json or markdown)", format)
}

type jsonDiff struct {
	Widened      bool     `json:"widened"`
	ChangedTools []string `json:"changed_tools"`
	WidenedTools []string `json:"widened_tools"`
	Changes      []Change `json:"changes"`
}

func writeJSON(w io.Writer, d *Diff) error {
	changed, widened := d.Tools()
	if changed == nil {
		changed = []string{}
	}
	if widened == nil {
		widened = []string{}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(jsonDiff{Widened: d.Widened(), ChangedTools: changed, WidenedTools: widened, Changes: d.Changes})
}

func items(its []Item) string {
	s := make([]string, len(its))
	for i, it := range its {
		s[i] = it.String()
	}
	return strings.Join(s, "; ")
}

// Text is the diff as a reviewer reads it on a terminal: one line per
// changed clause, what it grants before and after, then what is newly
// allowed and what no longer is, and a summary line.
func (d *Diff) Text() string {
	var b strings.Builder
	for _, c := range d.Changes {
		fmt.Fprintf(&b, "%s: %s: %s → %s\n", termstyle.Safe(c.Tool), c.Clause, c.Before, c.After)
		if len(c.Gained) > 0 {
			fmt.Fprintf(&b, "  widened: now also %s\n", items(c.Gained))
		}
		if len(c.Lost) > 0 {
			fmt.Fprintf(&b, "  narrowed: no longer %s\n", items(c.Lost))
		}
	}
	b.WriteString(d.Summary() + "\n")
	return b.String()
}

// Summary is one line: nothing changed, or how many tools changed and
// which widened.
func (d *Diff) Summary() string {
	changed, widened := d.Tools()
	switch {
	case len(changed) == 0:
		return "no grant changes"
	case len(widened) == 0:
		return fmt.Sprintf("%d tool(s) changed, none widened", len(changed))
	}
	safe := make([]string, len(widened))
	for i, n := range widened {
		safe[i] = termstyle.Safe(n)
	}
	return fmt.Sprintf("%d tool(s) changed, %d widened: %s", len(changed), len(widened), strings.Join(safe, ", "))
}

// Markdown is the diff for a pull request comment or a CI job summary.
func (d *Diff) Markdown() string {
	var b strings.Builder
	b.WriteString("## jp-policy: grant changes\n\n")
	changed, widened := d.Tools()
	switch {
	case len(changed) == 0:
		b.WriteString("No grant changes.\n")
		return b.String()
	case len(widened) == 0:
		fmt.Fprintf(&b, "%d tool(s) changed; **nothing widened**.\n", len(changed))
	default:
		fmt.Fprintf(&b, "%d tool(s) changed; **widened: %s**.\n", len(changed), quoteAll(widened))
	}
	tool := ""
	for _, c := range d.Changes {
		if c.Tool != tool {
			tool = c.Tool
			fmt.Fprintf(&b, "\n### %s\n\n", mdEscape(termstyle.Code(tool)))
		}
		fmt.Fprintf(&b, "- **%s** (%s): %s → %s\n", c.Clause, c.Effect(), mdEscape(c.Before), mdEscape(c.After))
		if len(c.Gained) > 0 {
			fmt.Fprintf(&b, "  - now also: %s\n", mdEscape(items(c.Gained)))
		}
		if len(c.Lost) > 0 {
			fmt.Fprintf(&b, "  - no longer: %s\n", mdEscape(items(c.Lost)))
		}
	}
	return b.String()
}

// mdEscape keeps text that came from config (paths, hosts) from being
// read as markup: HTML-ish brackets and pipes are escaped; backticks the
// diff itself wrote stay (every value from config is in a code span
// already, termstyle.Code, which escapes its backticks and line breaks).
func mdEscape(s string) string {
	return strings.NewReplacer("<", "&lt;", ">", "&gt;", "|", "\\|").Replace(s)
}
