package report

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/jp-policy/jp-policy/internal/diag"
)

// Options are shared by every format.
type Options struct {
	// Base is the directory file names are shown relative to: the working
	// directory for text and JSON (as ruff and golangci-lint do), the
	// repository root for SARIF and GitHub annotations (RepoRoot), which
	// resolve names against the checkout. Files outside it are shown with
	// `../` when they lie in Root, else from Home as ~/..., else absolute.
	Base string
	// Root is the workspace root; a file in it is named relative to Base
	// even when that takes `../` (running from a sub-directory).
	Root string
	Home string
	// Files holds the bytes of every config file by absolute path, for
	// source excerpts. Missing files simply get no excerpt.
	Files map[string][]byte
	// Color turns on ANSI colour in the text format.
	Color bool
	// Version is jp-policy's version, recorded in SARIF.
	Version string
}

// display returns the name a user should see for an absolute file path.
func (o Options) display(file string) string {
	if file == "" {
		return "<unknown>"
	}
	if rel, ok := within(o.Base, file); ok {
		return rel
	}
	if _, ok := within(o.Root, file); ok && o.Base != "" {
		if rel, err := filepath.Rel(o.Base, file); err == nil && !filepath.IsAbs(rel) {
			return filepath.ToSlash(rel)
		}
	}
	if rel, ok := within(o.Home, file); ok {
		return "~/" + rel
	}
	return filepath.ToSlash(file)
}

// within reports file relative to dir when it lies under it.
func within(dir, file string) (string, bool) {
	if dir == "" || !filepath.IsAbs(file) {
		return "", false
	}
	rel, err := filepath.Rel(dir, file)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// posString renders a position with its display file name.
func (o Options) posString(p diag.Position) string {
	q := p
	q.File = o.display(p.File)
	if p.File == "" {
		q.File = ""
	}
	return q.String()
}

// RepoRoot returns the root of the git checkout that holds dir (the
// nearest ancestor with a .git directory or file, as `git rev-parse
// --show-toplevel` finds it), or dir itself when there is none. SARIF
// and GitHub annotations name files relative to it, so they land on the
// right file when the workspace is a sub-directory of the repository.
func RepoRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}
