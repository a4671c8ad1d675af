package attachuri

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/jp-policy/jp-policy/internal/jpdirs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Scheme prefixes of the two URI forms.
const (
	FileScheme     = "file://"
	ExternalScheme = "external:"
)

// ErrNotUTF8 is returned for a path whose canonical form is not valid
// UTF-8: D03 cannot represent it (JP requires UTF-8 paths throughout).
var ErrNotUTF8 = errors.New("path is not valid UTF-8")

// Result is a computed URI and what it was computed from.
type Result struct {
	URI       string `json:"uri"`
	External  bool   `json:"external"`
	Canonical string `json:"-"` // the canonical absolute path; never printed by default
}

// For computes the attachment URI of p. p may be relative (to cwd), start
// with `~` (home), or be absolute; root is the workspace root. Both the
// path and the root are canonicalised (symlinks resolved), so a file
// reached through a workspace symlink that points outside is external,
// exactly as D03 decides on the canonical path.
func For(p, cwd, root, home string) (Result, error) {
	if !utf8.ValidString(p) {
		return Result{}, fmt.Errorf("%q: %w", p, ErrNotUTF8)
	}
	expanded, err := jpdirs.ExpandHome(p, home)
	if err != nil {
		return Result{}, err
	}
	if !filepath.IsAbs(expanded) {
		expanded = filepath.Join(cwd, expanded)
	}
	canon, err := filepath.EvalSymlinks(expanded)
	if err != nil {
		return Result{}, fmt.Errorf("cannot resolve %s: %w", p, err)
	}
	canon, err = filepath.Abs(canon)
	if err != nil {
		return Result{}, err
	}
	if !utf8.ValidString(canon) {
		return Result{}, fmt.Errorf("%s: %w", p, ErrNotUTF8)
	}
	rootCanon, err := filepath.EvalSymlinks(root)
	if err != nil {
		return Result{}, fmt.Errorf("workspace root: %w", err)
	}
	if rel, ok := within(rootCanon, canon); ok {
		return Result{URI: FileURI(rel), Canonical: canon}, nil
	}
	fi, err := os.Stat(canon)
	if err != nil {
		return Result{}, err
	}
	if fi.IsDir() {
		// An external attachment is a snapshot of one file; a directory
		// has no content to snapshot and no filename of its own to keep.
		return Result{}, fmt.Errorf("%s is a directory outside the workspace; attach files from it instead", p)
	}
	return Result{URI: ExternalURI(canon), External: true, Canonical: canon}, nil
}

// within reports whether canon is root or below it, and the slash-
// separated relative path.
func within(root, canon string) (string, bool) {
	rel, err := filepath.Rel(root, canon)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	if rel == "." {
		rel = ""
	}
	return filepath.ToSlash(rel), true
}

// FileURI is the URI of a workspace-relative, slash-separated path. The
// path is percent-encoded with the WHATWG URL path set, the encoding JP's
// URL library applies, so the URI matches the one JP records.
func FileURI(rel string) string {
	return FileScheme + "/" + escapePath(rel)
}

// ExternalURI is D03's URI of a file outside the workspace, given its
// canonical absolute path: the SHA-256 of the canonical parent directory's
// UTF-8 bytes, then the file name verbatim (kept readable for the LLM).
func ExternalURI(canonical string) string {
	dir, name := filepath.Split(canonical)
	dir = filepath.Clean(dir)
	sum := sha256.Sum256([]byte(dir))
	return ExternalScheme + hex.EncodeToString(sum[:]) + "/" + name
}

func escapePath(s string) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		// The WHATWG path percent-encode set (C0 controls, space, '"',
		// '#', '<', '>', '?', '`', '{', '}', non-ASCII) plus '\', which a
		// file URL would otherwise read as a separator.
		if c < 0x21 || c >= 0x7f || strings.IndexByte("\"#<>?`{}\\", c) >= 0 {
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
