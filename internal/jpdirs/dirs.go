package jpdirs

import (
	"errors"
	"fmt"
	"github.com/jp-policy/jp-policy/internal/platform"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// NoWorkspaceError means no ancestor of the working directory holds a
// `.jp/` directory.
type NoWorkspaceError struct{ Cwd string }

func (e *NoWorkspaceError) Error() string {
	return fmt.Sprintf("no JP workspace found: no .jp directory in %s or any parent (use --workspace DIR)", e.Cwd)
}

// NoHomeError means a per-user directory was needed but neither the JP
// variable nor a home directory tells where it is.
type NoHomeError struct{ What string }

func (e *NoHomeError) Error() string {
	return "cannot locate the " + e.What + ": no home directory"
}

func getenvOrOS(getenv func(string) string) func(string) string {
	if getenv == nil {
		return os.Getenv
	}
	return getenv
}

// home returns $HOME (%USERPROFILE% on Windows) through getenv, so tests
// never see the developer's real home.
func home(getenv func(string) string) string {
	if platform.Host == platform.Windows {
		if h := getenv("USERPROFILE"); h != "" {
			return h
		}
	}
	return getenv("HOME")
}

// absEnv returns an environment directory only when it is absolute: the
// XDG spec says relative values must be ignored.
func absEnv(getenv func(string) string, name string) string {
	if v := getenv(name); v != "" && filepath.IsAbs(v) {
		return v
	}
	return ""
}

// GlobalConfigDir is JP's user-global config directory:
// $JP_GLOBAL_CONFIG_DIR (a leading ~ is the home directory, as in JP's
// expand_tilde), else $XDG_CONFIG_HOME/jp or ~/.config/jp on Linux,
// ~/Library/Application Support/jp on macOS, %APPDATA%\jp\config on
// Windows.
func GlobalConfigDir(getenv func(string) string) (string, error) {
	getenv = getenvOrOS(getenv)
	if d := getenv("JP_GLOBAL_CONFIG_DIR"); d != "" {
		// JP replaces the first '~' of a value starting with one, and
		// falls back to the platform directory when there is no home.
		if !strings.HasPrefix(d, "~") {
			return filepath.Abs(d)
		}
		if h := home(getenv); h != "" {
			return filepath.Abs(strings.Replace(d, "~", h, 1))
		}
	}
	switch platform.Host {
	case platform.Windows:
		if d := getenv("APPDATA"); d != "" {
			return filepath.Join(d, "jp", "config"), nil
		}
	case platform.Darwin:
		if h := home(getenv); h != "" {
			return filepath.Join(h, "Library", "Application Support", "jp"), nil
		}
	default:
		if d := absEnv(getenv, "XDG_CONFIG_HOME"); d != "" {
			return filepath.Join(d, "jp"), nil
		}
		if h := home(getenv); h != "" {
			return filepath.Join(h, ".config", "jp"), nil
		}
	}
	return "", &NoHomeError{What: "global config directory"}
}

// UserDataDir is JP's per-user data directory (jp_workspace's
// user_data_dir): $JP_USER_DATA_DIR, else an absolute $XDG_DATA_HOME/jp
// on every platform, else ~/.local/share/jp on Linux,
// ~/Library/Application Support/jp on macOS and %LOCALAPPDATA%\jp\data
// on Windows (the directories crate's data_local_dir).
func UserDataDir(getenv func(string) string) (string, error) {
	getenv = getenvOrOS(getenv)
	if d := getenv("JP_USER_DATA_DIR"); d != "" {
		return filepath.Abs(d)
	}
	if d := absEnv(getenv, "XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "jp"), nil
	}
	switch platform.Host {
	case platform.Windows:
		if d := getenv("LOCALAPPDATA"); d != "" {
			return filepath.Join(d, "jp", "data"), nil
		}
	case platform.Darwin:
		if h := home(getenv); h != "" {
			return filepath.Join(h, "Library", "Application Support", "jp"), nil
		}
	default:
		if h := home(getenv); h != "" {
			return filepath.Join(h, ".local", "share", "jp"), nil
		}
	}
	return "", &NoHomeError{What: "user data directory"}
}

// FindRoot returns the canonical nearest ancestor of cwd (cwd included)
// that holds a `.jp` directory.
func FindRoot(cwd string) (string, error) {
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	for dir := abs; ; {
		if fi, err := os.Stat(filepath.Join(dir, ".jp")); err == nil && fi.IsDir() {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", &NoWorkspaceError{Cwd: abs}
		}
		dir = parent
	}
}

// InvalidIDError is a `.jp/.id` file that holds no usable workspace id.
type InvalidIDError struct {
	Path string
	ID   string
}

func (e *InvalidIDError) Error() string {
	if e.ID == "" {
		return e.Path + ": no workspace id"
	}
	return fmt.Sprintf("%s: workspace id %q has characters other than letters, digits, '-' and '_'", e.Path, e.ID)
}

// WorkspaceID reads the id JP stores in `<root>/.jp/.id`: the last
// non-empty line (JP writes a "DO NOT EDIT" banner above it).
func WorkspaceID(root string) (string, error) {
	p := filepath.Join(root, ".jp", ".id")
	data, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	id := ""
	for line := range strings.SplitSeq(string(data), "\n") {
		if t := strings.TrimSpace(line); t != "" {
			id = t
		}
	}
	// The id becomes a directory name: refuse anything that could climb
	// out of the user data directory.
	if id == "" || strings.Contains(id, "DO NOT EDIT") {
		return "", &InvalidIDError{Path: p}
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return "", &InvalidIDError{Path: p, ID: id}
		}
	}
	return id, nil
}

// UserWorkspaceDir is JP's per-user storage directory of the workspace at
// root: `<user_data_dir>/workspace/<slug>-<id>`, where slug is the
// workspace directory's name. Like JP (jp_storage's resolve_user_dir), an
// existing directory named `<id>` or ending in `-<id>` is reused whatever
// its slug, so every clone of a workspace shares one: the exact
// `<slug>-<id>` when it exists, else the most recently modified (the
// newest mtime of its entries, else its own), ties going to the greater
// name. JP keeps approvals.json here (RFD D43,
// `<user-workspace-storage>/approvals.json`). The directory may not exist.
func UserWorkspaceDir(root string, getenv func(string) string) (string, error) {
	id, err := WorkspaceID(root)
	if err != nil {
		return "", err
	}
	data, err := UserDataDir(getenv)
	if err != nil {
		return "", err
	}
	base := filepath.Join(data, "workspace")
	slug := filepath.Base(root)
	if slug == "." || slug == string(filepath.Separator) {
		slug = ""
	}
	entries, err := os.ReadDir(base)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	var best string
	var bestTime time.Time
	for _, e := range entries {
		n := e.Name()
		if n != id && !strings.HasSuffix(n, "-"+id) {
			continue
		}
		// JP's is_dir follows symlinks.
		if fi, err := os.Stat(filepath.Join(base, n)); err != nil || !fi.IsDir() {
			continue
		}
		if slug != "" && n == slug+"-"+id {
			return filepath.Join(base, n), nil
		}
		mt := dirMtime(filepath.Join(base, n))
		if best == "" || mt.After(bestTime) || mt.Equal(bestTime) && n > best {
			best, bestTime = n, mt
		}
	}
	if best != "" {
		return filepath.Join(base, best), nil
	}
	if slug == "" {
		return filepath.Join(base, id), nil
	}
	return filepath.Join(base, slug+"-"+id), nil
}

// dirMtime is JP's dir_mtime: the newest modification time of the
// directory's entries (through symlinks), else the directory's own, else
// the epoch.
func dirMtime(dir string) time.Time {
	var newest time.Time
	found := false
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			if fi, err := os.Stat(filepath.Join(dir, e.Name())); err == nil {
				if !found || fi.ModTime().After(newest) {
					newest, found = fi.ModTime(), true
				}
			}
		}
	}
	if found {
		return newest
	}
	if fi, err := os.Stat(dir); err == nil {
		return fi.ModTime()
	}
	return time.Unix(0, 0)
}

// ExpandHome replaces a leading `~` (alone or before a separator) with
// home, as JP expands a path a user typed. `~user` is left alone, as JP
// leaves it. A `~` with no home to expand to is an error, never a
// relative directory named "~".
func ExpandHome(p, home string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") && !(filepath.Separator == '\\' && strings.HasPrefix(p, `~\`)) {
		return p, nil
	}
	if home == "" {
		return "", errors.New("cannot expand ~: no home directory")
	}
	return filepath.Join(home, p[1:]), nil
}

// SharingWorkspacesText names other workspaces that share a workspace's
// id (and so its user storage, UserWorkspaceDir), for messages: "/a,
// which shares this workspace's id" or "/a and /b, which share this
// workspace's id".
func SharingWorkspacesText(roots []string) string {
	switch len(roots) {
	case 0:
		return "no other workspace"
	case 1:
		return roots[0] + ", which shares this workspace's id"
	}
	return strings.Join(roots[:len(roots)-1], ", ") + " and " + roots[len(roots)-1] + ", which share this workspace's id"
}
