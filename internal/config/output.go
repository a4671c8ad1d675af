package config

import (
	"fmt"
	"github.com/jp-policy/jp-policy/internal/tomlquote"
	"path/filepath"
	"sort"
	"strings"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/suggest"
)

// UnknownToolError is a --tool name no layer defines.
type UnknownToolError struct {
	Name    string
	Similar []string // closest configured names, best first
}

func (e *UnknownToolError) Error() string {
	msg := fmt.Sprintf("no tool named %q in the merged config", e.Name)
	if len(e.Similar) > 0 {
		msg += fmt.Sprintf("; did you mean %q?", e.Similar[0])
	}
	return msg
}

// RelPos shows a position relative to base when the file lies below it,
// so messages stay short and stable.
func RelPos(p diag.Position, base string) diag.Position {
	if p.File == "" || base == "" || !filepath.IsAbs(p.File) {
		return p
	}
	if rel, err := filepath.Rel(base, p.File); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		p.File = filepath.ToSlash(rel)
	}
	return p
}

// PrintOptions selects what WriteText and WriteJSON print.
type PrintOptions struct {
	Tool    string // "" = every tool
	Origins bool   // prefix every line with where it was written
}

func (l *Loaded) selected(tool string) ([]*Tool, error) {
	if tool != "" {
		if tool == "*" && l.Defaults != nil {
			return []*Tool{l.Defaults}, nil
		}
		t := l.Tools[tool]
		if t == nil {
			names := make([]string, 0, len(l.Tools))
			for n := range l.Tools {
				names = append(names, n)
			}
			return nil, &UnknownToolError{Name: tool, Similar: suggest.Closest(tool, names)}
		}
		return []*Tool{t}, nil
	}
	var out []*Tool
	if l.Defaults != nil {
		out = append(out, l.Defaults)
	}
	names := make([]string, 0, len(l.Tools))
	for n := range l.Tools {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		out = append(out, l.Tools[n])
	}
	return out, nil
}

func toolKey(name string) string {
	return "conversation.tools." + tomlquote.Key(name)
}
