package launcher

import (
	"slices"
	"strconv"
	"strings"
)

// Args are `jp-policy exec`'s flags and command, as ParseArgs reads them
// (the kong model in cmd/jp-policy has the same fields and is the one
// source of help and error messages).
type Args struct {
	Workspace, Policy, Tool, LogNet                              string
	Default, BestEffort, DryRun, Masks, Namespaces, NoNamespaces bool
	// Quiet silences exec's hints after a failed run (the full path's).
	Quiet      bool
	RequireABI int
	// Command keeps the "--" that ended the flags, as kong's passthrough
	// does.
	Command []string
}

// ParseArgs parses `jp-policy exec` arguments without kong. exec is on
// the path of every tool call, and kong builds its model by reflection
// before it reads an argument, even over the one-command grammar
// (cmd/jp-policy's BenchmarkKongReducedExecParse against
// BenchmarkExecFastParse measures what that costs). It accepts only the
// plain shapes it understands in full: known flags (--flag, --flag=value,
// --flag value, -t/-w value), then "--", then a non-empty command.
// Anything else (help, an unknown or repeated flag, a conflict, a missing
// value) returns false and kong parses the line. cmd/jp-policy's
// TestExecFastMatchesKong keeps the two parsers in agreement.
func ParseArgs(args []string) (*Args, bool) {
	c := &Args{}
	var seen [16]string // flag names so far: at most one of each
	nseen := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if i+1 >= len(args) {
				return nil, false
			}
			c.Command = args[i:]
			return c, c.consistent(seen[:nseen])
		}
		name, value, hasValue := a, "", false
		switch {
		case strings.HasPrefix(a, "--"):
			name = a[2:]
			if k, v, ok := strings.Cut(name, "="); ok {
				name, value, hasValue = k, v, true
			}
		case a == "-t":
			name = "tool"
		case a == "-w":
			name = "workspace"
		default:
			return nil, false
		}
		if slices.Contains(seen[:nseen], name) {
			return nil, false
		}
		if nseen == len(seen) {
			return nil, false
		}
		seen[nseen] = name
		nseen++
		switch name {
		case "default", "best-effort", "dry-run", "masks", "namespaces", "no-namespaces", "quiet":
			if hasValue {
				return nil, false
			}
			switch name {
			case "default":
				c.Default = true
			case "best-effort":
				c.BestEffort = true
			case "dry-run":
				c.DryRun = true
			case "masks":
				c.Masks = true
			case "namespaces":
				c.Namespaces = true
			case "no-namespaces":
				c.NoNamespaces = true
			case "quiet":
				c.Quiet = true
			}
		case "tool", "workspace", "policy", "require-abi", "log-net":
			if !hasValue {
				if i+1 >= len(args) || strings.HasPrefix(args[i+1], "-") {
					return nil, false
				}
				i++
				value = args[i]
			}
			switch name {
			case "tool":
				c.Tool = value
			case "workspace":
				c.Workspace = value
			case "policy":
				c.Policy = value
			case "log-net":
				c.LogNet = value
			case "require-abi":
				n, err := strconv.Atoi(value)
				if err != nil {
					return nil, false
				}
				c.RequireABI = n
			}
		default:
			return nil, false
		}
	}
	return nil, false
}

// consistent mirrors the kong model's xor groups; a conflict is left to
// kong, which explains it.
func (c *Args) consistent(seen []string) bool {
	has := func(n string) bool { return slices.Contains(seen, n) }
	return !(has("workspace") && has("policy")) &&
		!(has("policy") && has("default")) &&
		!(has("best-effort") && has("require-abi")) &&
		!(has("namespaces") && has("no-namespaces"))
}
