package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/tomlpos"
)

type extendTarget struct {
	path string
	at   diag.Position
}

// extends resolves a file's `extends` entries relative to the file, in
// the order written; glob matches come in lexical order.
func (ld *loader) extends(file string, root *tomlpos.Node) (before, after []extendTarget) {
	n := root.Get("extends")
	if n == nil || n.Kind != tomlpos.Array {
		return nil, nil
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
		var targets []extendTarget
		for _, p := range ld.expand(file, pattern, at) {
			targets = append(targets, extendTarget{path: p, at: at})
		}
		if strategy == "after" {
			after = append(after, targets...)
		} else {
			before = append(before, targets...)
		}
	}
	return before, after
}

func (ld *loader) expand(file, pattern string, at diag.Position) []string {
	// Like JP (a RelativePath joined to the declaring file's directory),
	// every entry is relative, even one that starts with a separator.
	p := filepath.Join(filepath.Dir(file), filepath.FromSlash(pattern))
	if !strings.ContainsAny(pattern, "*?[") {
		fi, err := os.Stat(p)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return []string{p} // reading it reports why, and stops loading
		}
		if err != nil || fi.IsDir() {
			ld.emit(diag.Diagnostic{Pos: at, Severity: diag.Warning, Rule: RuleMissingExt,
				Message: fmt.Sprintf("extends target %q does not exist (%s)", pattern, p)})
			return nil
		}
		return []string{p}
	}
	matches, err := glob(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		ld.emit(diag.Diagnostic{Pos: at, Severity: diag.Error, Rule: RuleSchema,
			Message: fmt.Sprintf("extends pattern %q: %v", pattern, err)})
		return nil
	}
	return matches
}

// maxGlobEntries bounds how many directory entries one extends pattern may
// visit, so a stray "/**/*.toml" fails quickly instead of walking the disk.
const maxGlobEntries = 200_000

// errGlobTooBig: the message is a constant (200,000 is maxGlobEntries), so
// no fmt call runs at every jp-policy start to build it.
var errGlobTooBig = errors.New("the pattern visits more than 200000 directory entries")

// countingFS counts the directory entries a glob reads.
type countingFS struct {
	fs.FS
	seen int
}

func (c *countingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(c.FS, name)
	c.seen += len(entries)
	if c.seen > maxGlobEntries {
		return nil, errGlobTooBig
	}
	return entries, err
}

// glob expands an absolute pattern (with ** support) to the files it
// matches, in JP's order: the glob crate JP uses walks depth-first and
// sorts each directory's entries by name, which is the order of comparing
// paths component by component (so "a/x" before "a-b/x", and "tools/x"
// before "tools.toml"), not of comparing whole path strings.
func glob(pattern string) ([]string, error) {
	// JP's glob syntax has no {a,b} alternation: braces are literal.
	slashed := strings.NewReplacer("{", `\{`, "}", `\}`).Replace(filepath.ToSlash(pattern))
	base, rest := doublestar.SplitPattern(slashed)
	base = strings.NewReplacer(`\{`, "{", `\}`, "}").Replace(base)
	fsys := &countingFS{FS: os.DirFS(filepath.FromSlash(base))}
	matches, err := doublestar.Glob(fsys, rest, doublestar.WithFilesOnly(), doublestar.WithFailOnIOErrors())
	if err != nil {
		return nil, err
	}
	out := make([]string, len(matches))
	for i, m := range matches {
		out[i] = filepath.Join(filepath.FromSlash(base), filepath.FromSlash(m))
	}
	slices.SortFunc(out, compareComponents)
	return out, nil
}

// compareComponents orders two paths by their components, each compared
// byte-wise as JP's glob compares file names.
func compareComponents(a, b string) int {
	for {
		ha, ra, moreA := strings.Cut(a, string(filepath.Separator))
		hb, rb, moreB := strings.Cut(b, string(filepath.Separator))
		if c := strings.Compare(ha, hb); c != 0 {
			return c
		}
		switch {
		case !moreA && !moreB:
			return 0
		case !moreA:
			return -1
		case !moreB:
			return 1
		}
		a, b = ra, rb
	}
}
