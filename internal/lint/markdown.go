package lint

import (
	"fmt"
	"strings"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// Markdown renders the catalogue as docs/rules.md holds it between its
// BEGIN/END markers; a test keeps the file and the code in step.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| ID | Name | Severity | Suppressible | Title |\n|---|---|---|---|---|\n")
	for _, r := range Rules() {
		fmt.Fprintf(&b, "| [%s](#%s) | %s | %s | %s | %s |\n", r.ID, strings.ToLower(r.ID), r.Name, r.Severity, yesNo(r.Suppressible), r.Title)
	}
	for _, r := range Rules() {
		origin := "lint"
		if r.Loader {
			origin = "the config loader"
		}
		if r.Origin != "" {
			origin = r.Origin
		}
		fmt.Fprintf(&b, "\n### %s\n\n**%s** · %s · reported by %s · suppressible: %s\n\n%s\n\n%s\n\n**Fix:** %s\n",
			r.ID, r.Name, r.Severity, origin, yesNo(r.Suppressible), r.Title, r.Description, r.Fix)
	}
	return b.String()
}

// MapPaths returns the JP config paths lint treats as maps (where a `*`
// segment may follow), for documentation.
func MapPaths() []string { return policy.ConfigMapPaths() }

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
