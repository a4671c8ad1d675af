package report

import (
	"path/filepath"
	"strings"

	"github.com/jp-policy/jp-policy/internal/diag"
)

// Options are shared by every format.
type Options struct {
	// Base is the directory file names are shown relative to (normally the
	// workspace root); files outside it are shown from Home as ~/... or
	// absolute.
	Base string
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
