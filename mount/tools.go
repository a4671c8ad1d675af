package mount

import (
	"sort"
	"strings"

	"github.com/jp-policy/jp-policy/config"
	"github.com/jp-policy/jp-policy/diag"
	"github.com/jp-policy/jp-policy/policy"
)

// ToolInfo is what a mount needs to know about one configured tool.
type ToolInfo struct {
	Name    string
	Source  string
	Local   bool
	Enabled bool
	// FS lists the tool's merged access.fs rules; empty means no layer
	// declared any, so the tool has implicit workspace access (RFD 076).
	FS []ExistingRule
}

// ExistingRule is one merged access.fs rule, reduced to what a mount
// compares against.
type ExistingRule struct {
	Lexical string // the rule path in lexical normal form ("" = root)
	Pos     diag.Position
}

// ToolsFromConfig reduces the merged config to the tools a mount can
// scope over, sorted by name.
func ToolsFromConfig(l *config.Loaded) []ToolInfo {
	var defaults *config.Tool
	if l != nil {
		defaults = l.Defaults
	}
	var out []ToolInfo
	for name, t := range l.Tools {
		ti := ToolInfo{Name: name, Source: t.Source.Value, Local: isLocal(t.Source), Enabled: enabled(t, defaults)}
		if t.Access != nil {
			for _, r := range t.Access.FS {
				lex, err := policy.LexicalRel(r.Path)
				if err != nil {
					// Not comparable with a rule path, but it still counts
					// as a declared rule for default-deny purposes.
					lex = "\x00" + r.Path
				}
				ti.FS = append(ti.FS, ExistingRule{Lexical: lex, Pos: r.Pos})
			}
		}
		out = append(out, ti)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// isLocal follows JP's ToolSource parsing: "local" or "local.<tool>".
func isLocal(s config.Str) bool {
	return s.Set && (s.Value == "local" || strings.HasPrefix(s.Value, "local."))
}

// enabled resolves `enable` the way JP's effective_enable does for a bare
// mount's scope: the tool's own value, else the `conversation.tools.'*'`
// default, else enabled. "explicit" tools only run when asked for by
// name, so a mount that names no tool leaves them out, as JP does.
func enabled(t, defaults *config.Tool) bool {
	for _, c := range []*config.Tool{t, defaults} {
		if c == nil {
			continue
		}
		if c.Enable.Set {
			return c.Enable.Value
		}
		if c.EnableMode.Set {
			switch c.EnableMode.Value {
			case "on", "always", "true":
				return true
			default:
				return false
			}
		}
	}
	return true
}

// suggest returns the configured name closest to name, or "" when none
// is close enough to be a plausible typo.
func suggest(name string, tools []ToolInfo) string {
	best, bestD := "", len(name)/3+2
	for _, t := range tools {
		if d := editDistance(name, t.Name); d < bestD {
			best, bestD = t.Name, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
