package mount

import (
	"path"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jp-policy/jp-policy/internal/jpdirs"
)

// ManagedDir is JP's storage directory inside a workspace; nothing may be
// mounted under it.
const ManagedDir = ".jp"

// ResolveName turns a mount NAME into the workspace-relative, slash-
// separated rule path: NAME is taken relative to cwd (an absolute NAME is
// accepted only inside the workspace), normalised lexically, and must land
// strictly inside root and outside .jp/. root and cwd must be absolute and
// clean; no filesystem access happens here.
func ResolveName(name, cwd, root string) (string, error) {
	if !utf8.ValidString(name) || strings.ContainsFunc(name, unicode.IsControl) {
		// The rule path is written into TOML and into a marker comment;
		// neither can carry it faithfully.
		return "", errorf(KindInvalidName, "mount name %q must be UTF-8 without control characters", name)
	}
	// The working directory may be spelt through a symlink ($PWD, or
	// macOS's /tmp -> /private/tmp) while root is canonical: relate the
	// two in canonical form, then apply NAME lexically as D43 says.
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = real
	}
	joined := name
	if !filepath.IsAbs(name) {
		joined = filepath.Join(cwd, name)
	}
	joined = filepath.Clean(joined)
	rel, err := filepath.Rel(root, joined)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", errorf(KindOutsideWorkspace, "mount name %q resolves outside the workspace %s", name, root)
	}
	rel = filepath.ToSlash(rel)
	first, _, _ := strings.Cut(rel, "/")
	// Compared without case: on case-insensitive filesystems ".JP" is the
	// same directory, and refusing it everywhere costs nothing.
	if strings.EqualFold(first, ManagedDir) {
		return "", errorf(KindManagedStorage, "mount name %q is inside JP-managed storage (%s/)", name, ManagedDir)
	}
	// A link named .jp.toml (or .jp.json, ...) would make the mounted
	// file, outside the workspace and outside review, a config layer JP
	// and jp-policy read in that directory: the mount would rewrite the
	// policy. Compared without case, as .jp is.
	for elem := range strings.SplitSeq(rel, "/") {
		for _, ext := range jpdirs.Extensions {
			if strings.EqualFold(elem, ManagedDir+ext) {
				return "", errorf(KindConfigLayer, "mount name %q would be a JP config layer (%s): a mount cannot add config; choose another name", name, elem)
			}
		}
	}
	return path.Clean(rel), nil
}
