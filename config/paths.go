package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
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
	if runtime.GOOS == "windows" {
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
// $JP_GLOBAL_CONFIG_DIR, else $XDG_CONFIG_HOME/jp or ~/.config/jp on
// Linux, ~/Library/Application Support/jp on macOS, %APPDATA%\jp\config
// on Windows.
func GlobalConfigDir(getenv func(string) string) (string, error) {
	getenv = getenvOrOS(getenv)
	if d := getenv("JP_GLOBAL_CONFIG_DIR"); d != "" {
		return filepath.Abs(d)
	}
	switch runtime.GOOS {
	case "windows":
		if d := getenv("APPDATA"); d != "" {
			return filepath.Join(d, "jp", "config"), nil
		}
	case "darwin":
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

// UserDataDir is JP's per-user data directory: $JP_USER_DATA_DIR, else
// $XDG_DATA_HOME/jp or ~/.local/share/jp on Linux, ~/Library/Application
// Support/jp on macOS, %APPDATA%\jp\data on Windows.
func UserDataDir(getenv func(string) string) (string, error) {
	getenv = getenvOrOS(getenv)
	if d := getenv("JP_USER_DATA_DIR"); d != "" {
		return filepath.Abs(d)
	}
	switch runtime.GOOS {
	case "windows":
		if d := getenv("APPDATA"); d != "" {
			return filepath.Join(d, "jp", "data"), nil
		}
	case "darwin":
		if h := home(getenv); h != "" {
			return filepath.Join(h, "Library", "Application Support", "jp"), nil
		}
	default:
		if d := absEnv(getenv, "XDG_DATA_HOME"); d != "" {
			return filepath.Join(d, "jp"), nil
		}
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
	for _, line := range strings.Split(string(data), "\n") {
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
// workspace directory's name. Like JP, an existing directory named `<id>`
// or ending in `-<id>` is reused whatever its slug, so every clone of a
// workspace shares one directory. JP keeps approvals.json here (RFD D43,
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
	if entries, err := os.ReadDir(base); err == nil {
		var found []string
		for _, e := range entries {
			n := e.Name()
			if e.IsDir() && (n == id || strings.HasSuffix(n, "-"+id)) {
				found = append(found, n)
			}
		}
		if len(found) > 0 {
			sort.Strings(found)
			return filepath.Join(base, found[0]), nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	slug := filepath.Base(root)
	if slug == "" || slug == "." || slug == string(filepath.Separator) {
		return filepath.Join(base, id), nil
	}
	return filepath.Join(base, slug+"-"+id), nil
}
