package lint

import (
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/diag"
)

// builtinSensitivePaths is RFD 075's list. Config adds to it through
// `sensitive_paths`; nothing removes from it.
var builtinSensitivePaths = []string{
	"~/.ssh/",
	"~/.gnupg/",
	"~/.gpg/",
	"~/.aws/credentials",
	"~/.config/gcloud/",
	"~/.kube/config",
	"~/.docker/config.json",
	"**/.env",
	"**/.env.*",
}

// sensitivePath is one entry of the effective list.
type sensitivePath struct {
	pattern string        // as written
	pos     diag.Position // where config added it; zero for built-ins
	tool    string        // "" applies to every tool, else only this one
	// abs is the absolute path of an anchored entry (~/ or /) without
	// glob characters; "" otherwise.
	abs string
	// glob is a doublestar pattern: workspace-relative unless absGlob.
	glob    string
	absGlob bool
}

func (s sensitivePath) appliesTo(tool string) bool { return s.tool == "" || s.tool == tool }

// parseSensitive turns one written entry into a sensitivePath; ok is
// false for entries that cannot apply here (a ~/ entry without a known
// home directory, an empty string).
func parseSensitive(pattern, home string) (sensitivePath, bool) {
	sp := sensitivePath{pattern: pattern}
	p := strings.TrimSpace(pattern)
	if p == "" {
		return sp, false
	}
	anchored := false
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if home == "" {
			return sp, false
		}
		p = filepath.ToSlash(home) + strings.TrimPrefix(p, "~")
		anchored = true
	case filepath.IsAbs(p) || strings.HasPrefix(p, "/"):
		anchored = true
	}
	p = strings.TrimSuffix(filepath.ToSlash(p), "/")
	if p == "" {
		p = "/"
	}
	meta := strings.ContainsAny(p, "*?[{")
	switch {
	case anchored && !meta:
		sp.abs = filepath.Clean(filepath.FromSlash(p))
	case anchored:
		sp.glob, sp.absGlob = p, true
	default:
		sp.glob = p
	}
	return sp, true
}

// sensitiveList builds the effective list for a config.
func sensitiveList(l *config.Loaded, sorted []*config.Tool, home string) []sensitivePath {
	var out []sensitivePath
	for _, p := range builtinSensitivePaths {
		if sp, ok := parseSensitive(p, home); ok {
			out = append(out, sp)
		}
	}
	add := func(tool string, a *config.Access) {
		if a == nil {
			return
		}
		for _, s := range a.SensitivePaths {
			if sp, ok := parseSensitive(s.Value, home); ok {
				sp.pos, sp.tool = s.Pos, tool
				out = append(out, sp)
			}
		}
	}
	if l.Defaults != nil {
		add("", l.Defaults.Access)
	}
	for _, t := range sorted {
		add(t.Name, t.Access)
	}
	return out
}

// matchGlob matches a file against a glob entry: rel is the file's
// workspace-relative key, abs its absolute path.
func (s sensitivePath) matchGlob(rel, abs string) bool {
	name := rel
	if s.absGlob {
		name = filepath.ToSlash(abs)
	}
	ok, err := doublestar.Match(s.glob, name)
	return err == nil && ok
}

// SensitiveAnchored returns the entries of the effective sensitive list
// (RFD 075's and the config's sensitive_paths) that apply to tool and
// name one absolute path (~/ or /, no glob), with home for ~: exec
// --denials proposes no mount that reaches one.
func SensitiveAnchored(l *config.Loaded, tool, home string) []string {
	var out []string
	for _, sp := range sensitiveList(l, sortedTools(l), home) {
		if sp.abs != "" && sp.appliesTo(tool) {
			out = append(out, sp.abs)
		}
	}
	return out
}
