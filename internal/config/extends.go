package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/jpdirs"
	"github.com/jp-policy/jp-policy/internal/policy"
	"github.com/jp-policy/jp-policy/internal/tomlpos"
)

type extendTarget struct {
	path string
	at   diag.Position
	// pattern is the extends entry as written; glob is set when JP
	// expanded it as a glob, whose matches need not be files.
	pattern string
	glob    bool
}

// extends resolves a file's `extends` entries relative to the file, in
// the order written; glob matches come in JP's order.
func (ld *loader) extends(file string, root *tomlpos.Node) (before, after []extendTarget, err error) {
	n := root.Get("extends")
	if n == nil || n.Kind != tomlpos.Array {
		return nil, nil, nil
	}
	for _, it := range n.Items {
		var pattern string
		strategy := "before"
		at := it.Pos
		switch it.Kind {
		case tomlpos.String:
			pattern = it.Str
		case tomlpos.Table:
			p := it.Get("path")
			if p == nil || p.Kind != tomlpos.String {
				continue // the schema reports it
			}
			pattern, at = p.Str, p.Pos
			if s := it.Get("strategy"); s != nil && s.Kind == tomlpos.String {
				if s.Str != "before" && s.Str != "after" {
					continue
				}
				strategy = s.Str
			}
		default:
			continue
		}
		if pattern == "" {
			continue
		}
		targets, err := ld.expand(file, pattern, at)
		if err != nil {
			return nil, nil, err
		}
		if strategy == "after" {
			after = append(after, targets...)
		} else {
			before = append(before, targets...)
		}
	}
	return before, after, nil
}

// expand resolves one extends entry as JP's load_optional_paths does.
// Whether the entry is a glob is decided on the whole joined path, the
// declaring file's directory included: a `.jp.toml` in a directory named
// `sub[x]` that extends "local.toml" is the pattern `.../sub[x]/local.toml`
// to JP, which matches `.../subx/local.toml` and not the file beside it.
func (ld *loader) expand(file, pattern string, at diag.Position) ([]extendTarget, error) {
	// Like JP (a RelativePath joined to the declaring file's directory),
	// every entry is relative, even one that starts with a separator.
	p := filepath.Join(filepath.Dir(file), filepath.FromSlash(pattern))
	if !utf8.ValidString(p) {
		ld.emit(diag.Diagnostic{Pos: at, Severity: diag.Warning, Rule: RuleMissingExt,
			Message: fmt.Sprintf("extends target %q: the path %q is not UTF-8, and JP skips such an entry", pattern, p)})
		return nil, nil
	}
	if !strings.ContainsAny(p, "*?[") {
		fi, err := os.Stat(p)
		if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return []extendTarget{{path: p, at: at, pattern: pattern}}, nil // reading it reports why, and stops loading
		}
		if err != nil || !fi.Mode().IsRegular() {
			ld.emit(diag.Diagnostic{Pos: at, Severity: diag.Warning, Rule: RuleMissingExt,
				Message: fmt.Sprintf("extends target %q does not exist (%s)", pattern, p)})
			if err != nil && !slices.Contains(ld.l.Candidates, p) {
				// JP loads it once it exists: a tool that creates it
				// adds a layer (attack_config_extends_missing.txtar).
				ld.l.Candidates = append(ld.l.Candidates, p)
			}
			return nil, nil
		}
		return []extendTarget{{path: p, at: at, pattern: pattern}}, nil
	}
	if filepath.Separator != '/' {
		// The Rust glob crate's syntax is reproduced for Unix paths only.
		return nil, fatal(at, RuleSchema, "extends pattern %q: glob patterns are read on Unix only", pattern)
	}
	base := ld.globDir(p)
	matches, listed, err := jpGlobListed(p)
	if errors.Is(err, errGlobTooBig) || errors.As(err, new(*fs.PathError)) {
		return nil, fatal(at, RuleSchema, "extends pattern %q: %v; JP skips a directory it cannot read, and jp-policy refuses rather than guess what it holds", pattern, err)
	}
	if err != nil {
		// JP's glob() refuses the pattern, and JP does not start.
		return nil, diag.List{{Pos: at, Severity: diag.Error, Rule: RuleSchema,
			Message: fmt.Sprintf("extends pattern %q: %v; JP refuses the pattern and does not start", pattern, err),
			Help:    "JP's glob syntax: `*`, `?`, `[abc]`, `[a-z]`, `[!abc]` (not `[^abc]`), `**` as a whole path component; `\\` and braces are ordinary characters, `[*]` matches a literal `*`"}}
	}
	// A directory the walk read outside the base (through a symlinked
	// directory) is searched just the same: kept read-only with it.
	for _, d := range listed {
		if real, err := filepath.EvalSymlinks(d); err == nil && (base == "" || !policy.Within(real, base)) && !slices.Contains(ld.l.GlobDirs, real) {
			ld.l.GlobDirs = append(ld.l.GlobDirs, real)
		}
	}
	out := make([]extendTarget, len(matches))
	for i, m := range matches {
		out[i] = extendTarget{path: m, at: at, pattern: pattern, glob: true}
	}
	return out, nil
}

// resolveMatch is JP's load_config_file_at_path for a glob match: the
// match when it is a regular file, else the match with its extension
// replaced by each of JP's in turn (a directory `tools/x.toml` loads
// `tools/x.json`; `conf.d/.` loads `conf.toml`). ok is false when none is
// a file: JP then drops the whole layer the match was reached from.
func resolveMatch(m string) (file string, tried []string, ok bool) {
	tried = rustExtensionCandidates(m, jpdirs.Extensions)
	for _, c := range tried {
		if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() {
			if hasDotComponent(c) {
				// A match through "." or "..": the file JP opens is the
				// physical one, which a lexical clean could miss.
				if real, err := filepath.EvalSymlinks(c); err == nil {
					c = real
				}
			}
			return c, tried, true
		}
	}
	return "", tried, false
}

// maxGlobEntries bounds how many directory entries one extends pattern may
// visit, so a stray "/**/*.toml" fails quickly instead of walking the disk.
const maxGlobEntries = 200_000

// errGlobTooBig: the message is a constant (200,000 is maxGlobEntries), so
// no fmt call runs at every jp-policy start to build it.
var errGlobTooBig = errors.New("the pattern visits more than 200000 directory entries")

// hasDotComponent reports a "." or ".." component in p.
func hasDotComponent(p string) bool {
	for c := range strings.SplitSeq(p, "/") {
		if c == "." || c == ".." {
			return true
		}
	}
	return false
}

// globDir records the directory glob pattern p searches: its components
// up to the first that holds `*`, `?` or `[`. When it exists it is one of
// Loaded.GlobDirs (kept read-only whole) and base is its canonical path;
// when it does not it is a candidate, so the artifact goes stale when a
// tool makes it.
func (ld *loader) globDir(p string) (base string) {
	dir := "/"
	for c := range strings.SplitSeq(strings.TrimPrefix(p, "/"), "/") {
		if strings.ContainsAny(c, "*?[") {
			break
		}
		dir = filepath.Join(dir, c)
	}
	fi, err := os.Stat(dir)
	switch {
	case err == nil && fi.IsDir():
		if !slices.Contains(ld.l.GlobDirs, dir) {
			ld.l.GlobDirs = append(ld.l.GlobDirs, dir)
		}
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return real
		}
	case errors.Is(err, fs.ErrNotExist) && !slices.Contains(ld.l.Candidates, dir):
		ld.l.Candidates = append(ld.l.Candidates, dir)
	}
	return ""
}
