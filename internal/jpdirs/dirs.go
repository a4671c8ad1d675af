package jpdirs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jp-policy/jp-policy/internal/platform"
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

// InvalidIDError is a `.jp/.id` file whose id JP does not accept. JP then
// starts with a new id, a new and empty user-workspace directory, and
// rewrites the file (jp_workspace's Id::load failing into a default id),
// so nothing stored under the old id (user-workspace config, approvals,
// conversations) is read.
type InvalidIDError struct {
	Path string
	// Reason says what JP finds wrong with the file.
	Reason string
}

func (e *InvalidIDError) Error() string {
	return e.Path + ": " + e.Reason + ", so JP does not use it (it starts with a new id and an empty user-workspace directory)"
}

// WorkspaceID reads the id JP stores in `<root>/.jp/.id`, exactly as JP
// accepts it (jp_workspace's Id::load): the last line as Rust's str::lines
// splits the file (a final newline ends a line, "\r\n" is a newline, a
// bare "\r" ending the file stays in the last line, nothing is trimmed),
// which must be exactly 5 bytes long, each character accepted when its
// low byte (Rust's `c as u8`) is one of 0-9 and a-z: "r\u0161d5" is an id
// JP uses (U+0161's low byte is 'a'). JP writes a "DO NOT EDIT" banner
// line above it. Any other content is an *InvalidIDError: a commit that
// adds a blank last line or an id JP rejects must not leave jp-policy
// reading a user-workspace directory JP no longer uses, and an id JP takes
// must not leave it reading none (attack_approvals_id_lines.txtar).
func WorkspaceID(root string) (string, error) {
	p := filepath.Join(root, ".jp", ".id")
	data, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(data) {
		return "", &InvalidIDError{Path: p, Reason: "the file is not UTF-8"}
	}
	text := string(data)
	if t, ok := strings.CutSuffix(text, "\n"); ok {
		text = strings.TrimSuffix(t, "\r")
	}
	last := text[strings.LastIndexByte(text, '\n')+1:]
	ok := len(last) == 5
	for _, c := range last {
		ok = ok && strings.IndexByte(idChars, byte(c)) >= 0
	}
	if !ok {
		return "", &InvalidIDError{Path: p, Reason: fmt.Sprintf("the last line %q is not a workspace id (exactly 5 characters from 0-9 and a-z)", last)}
	}
	return last, nil
}

// idChars are the characters of a workspace id (jp_workspace's ID_CHARS).
const idChars = "0123456789abcdefghijklmnopqrstuvwxyz"

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
