package mount

import (
	"sort"
	"strings"

	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/policy"
	"github.com/jp-policy/jp-policy/internal/suggest"
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

// enabled resolves `enable` as JP's effective_enable does
// (config.EffectiveEnable). "explicit" tools only run when asked for by
// name, so a mount that names no tool leaves them out, as JP does.
func enabled(t, defaults *config.Tool) bool {
	return config.EffectiveEnable(t, defaults).State
}

// suggestTool returns the configured name closest to name, or "" when
// none is close enough to be a plausible typo.
func suggestTool(name string, tools []ToolInfo) string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	if c := suggest.Closest(name, names); len(c) > 0 {
		return c[0]
	}
	return ""
}
