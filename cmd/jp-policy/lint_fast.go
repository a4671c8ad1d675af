package main

import (
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// parseLintFast parses `jp-policy lint` arguments without kong, for the
// same reason exec has parseExecFast: kong builds its model by reflection
// before it reads an argument, a large share of a short lint run
// (docs/lint.md, "Where lint's time goes"), and lint runs in
// pre-commit hooks and editors on every save. It accepts only lines it
// understands in full: each known flag at most once, as --flag,
// --flag=value, --flag value, or -w/-q; --color; values kong would accept
// unchanged (an enum member; an --ignore without the separator kong
// splits on; valid UTF-8, which kong keeps byte for byte). Anything else (help, --version, an unknown or repeated
// flag, a positional argument, a missing or odd value) returns false and
// kong parses the line, so kong stays the one source of help and error
// messages. TestLintFastMatchesKong keeps the two parsers in agreement.
func parseLintFast(args []string) (c *LintCmd, color string, ok bool) {
	c = &LintCmd{Format: "text"} // kong's defaults
	color = "auto"
	var seen []string // flags given, to refuse repeats (tiny: no map)
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !utf8.ValidString(a) || i+1 < len(args) && !utf8.ValidString(args[i+1]) {
			return nil, "", false // kong rewrites invalid UTF-8
		}
		name, value, hasValue, ok := fastFlag(a, map[string]string{"-w": "workspace", "-q": "quiet"})
		if !ok {
			return nil, "", false
		}
		switch name {
		case "cfg", "ignore": // repeatable
		default:
			if slices.Contains(seen, name) {
				return nil, "", false
			}
			seen = append(seen, name)
		}
		switch name {
		case "strict", "quiet", "fix", "portable":
			if hasValue {
				return nil, "", false
			}
			switch name {
			case "strict":
				c.Strict = true
			case "quiet":
				c.Quiet = true
			case "fix":
				c.Fix = true
			case "portable":
				c.Portable = true
			}
			continue
		case "workspace", "cfg", "format", "ignore", "approvals", "color":
		default:
			return nil, "", false
		}
		if !hasValue {
			if i+1 >= len(args) || strings.HasPrefix(args[i+1], "-") {
				return nil, "", false
			}
			i++
			value = args[i]
		}
		switch name {
		case "workspace":
			c.Workspace = lintPath(value)
		case "approvals":
			c.Approvals = lintPath(value)
		case "cfg":
			c.Cfg = append(c.Cfg, value) // sep:"none": taken whole
		case "ignore":
			// kong splits on unescaped commas; leave those lines to it.
			if value == "" || strings.ContainsAny(value, `,\`) {
				return nil, "", false
			}
			c.Ignore = append(c.Ignore, value)
		case "format":
			switch value {
			case "text", "json", "sarif", "github":
				c.Format = value
			default:
				return nil, "", false
			}
		case "color":
			switch value {
			case "auto", "always", "never":
				color = value
			default:
				return nil, "", false
			}
		}
	}
	return c, color, true
}

// lintPath is kong's `type:"path"` mapping (kong.ExpandPath: absolute
// as is, "~/" under the user's home directory from the user database,
// anything else made absolute), so both parsers give lint the same
// directory. Written out rather than called so that lint's own code does
// not pull in kong, whose package init compiles regexps (a lint-only
// binary, docs/lint.md); TestLintFastMatchesKong compares the two.
func lintPath(v string) string {
	switch {
	case v == "-", filepath.IsAbs(v):
		return v
	case strings.HasPrefix(v, "~/"):
		if u, err := user.Current(); err == nil {
			return filepath.Join(u.HomeDir, v[2:])
		}
		return v
	}
	if abs, err := filepath.Abs(v); err == nil {
		return abs
	}
	return v
}

// fastFlag reads one argument of a fast parser: --name, --name=value, or a
// short flag listed in shorts (short to long name), nothing else. ok is
// false for anything else, which the caller leaves to kong.
func fastFlag(a string, shorts map[string]string) (name, value string, hasValue, ok bool) {
	if strings.HasPrefix(a, "--") && len(a) > 2 {
		name = a[2:]
		if k, v, found := strings.Cut(name, "="); found {
			return k, v, true, true
		}
		return name, "", false, true
	}
	if long, found := shorts[a]; found {
		return long, "", false, true
	}
	return "", "", false, false
}
