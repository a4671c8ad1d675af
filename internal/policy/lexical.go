package policy

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jp-policy/jp-policy/internal/platform"
)

// MaxPathLen bounds inputs and resolved paths (Linux PATH_MAX). Longer
// inputs are KindTooLong rather than a slow walk that fails anyway.
const MaxPathLen = 4096

// isSep reports whether c separates path components in user input. On
// Windows both slashes do; elsewhere a backslash is an ordinary byte.
func isSep(c byte) bool {
	return c == '/' || (platform.Host == platform.Windows && c == '\\')
}

// isRooted reports whether input is absolute or rooted on this OS. On
// Windows "/etc" is rooted without being absolute, and "C:x" is
// drive-relative; both are refused like absolute paths.
func isRooted(input string) bool {
	if input == "" {
		return false
	}
	if isSep(input[0]) || filepath.IsAbs(input) {
		return true
	}
	return platform.Host == platform.Windows && filepath.VolumeName(input) != ""
}

// LexicalRel turns workspace-relative input into its lexical normal form:
// slash-separated, no "." or empty components, ".." collapsed, "" for the
// root. It does no I/O. Errors are *PathError with KindNUL, KindTooLong,
// KindAbsolute or KindInputEscape.
func LexicalRel(input string) (string, error) {
	if strings.IndexByte(input, 0) >= 0 {
		return "", &PathError{Kind: KindNUL, Path: input, Msg: "path contains a NUL byte"}
	}
	if len(input) > MaxPathLen {
		return "", &PathError{Kind: KindTooLong, Path: input[:64] + "...", Msg: "path is longer than 4096 bytes"}
	}
	if isRooted(input) {
		return "", &PathError{Kind: KindAbsolute, Path: input, Msg: "absolute paths are not permitted; give a workspace-relative path"}
	}
	if platform.Host == platform.Windows {
		if err := windowsComponentsOK(input); err != nil {
			return "", err
		}
	}
	// Fast path: already normal (the common case for tools and for keys
	// that went through here once) costs no allocation.
	if isLexicalNormal(input) {
		return input, nil
	}
	var parts []string
	escaped := false
	forEachComponent(input, func(c string) bool {
		switch c {
		case "", ".":
		case "..":
			if len(parts) == 0 {
				escaped = true
				return false
			}
			parts = parts[:len(parts)-1]
		default:
			parts = append(parts, c)
		}
		return true
	})
	if escaped {
		return "", &PathError{Kind: KindInputEscape, Path: input, Msg: "path escapes the workspace"}
	}
	return strings.Join(parts, "/"), nil
}

// forEachComponent calls f for each separator-delimited component of s
// until f returns false.
func forEachComponent(s string, f func(string) bool) {
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || isSep(s[i]) {
			if !f(s[start:i]) {
				return
			}
			start = i + 1
		}
	}
}

// isLexicalNormal reports whether s is already in LexicalRel's output form.
func isLexicalNormal(s string) bool {
	if s == "" {
		return true
	}
	ok := true
	forEachComponent(s, func(c string) bool {
		if c == "" || c == "." || c == ".." {
			ok = false
		}
		return ok
	})
	if ok && platform.Host == platform.Windows && strings.IndexByte(s, '\\') >= 0 {
		return false
	}
	return ok
}

// hasPathPrefix reports whether p equals prefix or lies beneath it,
// component-wise, for OS paths.
func hasPathPrefix(p, prefix string) bool {
	if !strings.HasPrefix(p, prefix) {
		return false
	}
	if len(p) == len(prefix) {
		return true
	}
	if prefix != "" && isOSSep(prefix[len(prefix)-1]) {
		return true
	}
	return isOSSep(p[len(prefix)])
}

// hasRelPrefix is hasPathPrefix for slash-separated workspace-relative
// keys, where "" (the root) is a prefix of everything.
func hasRelPrefix(p, prefix string) bool {
	if prefix == "" {
		return true
	}
	if !strings.HasPrefix(p, prefix) {
		return false
	}
	return len(p) == len(prefix) || p[len(prefix)] == '/'
}

func isOSSep(c byte) bool { return c == filepath.Separator || c == '/' }

// windowsComponentsOK refuses names Windows would reinterpret, so the
// key a rule is matched on is the name the file system opens: ':' selects
// an alternate data stream ("secret::$INDEX_ALLOCATION" is the directory
// secret), and a trailing dot or space is stripped ("secret." is secret).
func windowsComponentsOK(input string) error {
	var bad string
	forEachComponent(input, func(c string) bool {
		if c == "" || c == "." || c == ".." {
			return true
		}
		last := c[len(c)-1]
		if strings.IndexByte(c, ':') >= 0 || last == '.' || last == ' ' {
			bad = c
			return false
		}
		return true
	})
	if bad != "" {
		return &PathError{Kind: KindInvalid, Path: input, Msg: "path component " + strconv.Quote(bad) + " is reinterpreted by Windows (':' stream or trailing dot/space)"}
	}
	return nil
}
