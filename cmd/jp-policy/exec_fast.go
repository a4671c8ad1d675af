package main

import (
	"strconv"
	"strings"
)

// parseExecFast parses `jp-policy exec` arguments without kong. exec is on
// the path of every tool call, and kong builds its model by reflection
// before it reads an argument: 0.19 ms and 1,171 allocations even over the
// one-command grammar (BenchmarkKongReducedExecParse), against 0.1 µs here
// (BenchmarkExecFastParse). It accepts only the plain shapes it
// understands in full: known flags (--flag, --flag=value, --flag value,
// -t/-w value), then "--", then a non-empty command. Anything else (help,
// an unknown or repeated flag, a conflict, a missing value) returns false
// and kong parses the line, so kong stays the one source of help and
// error messages. TestExecFastMatchesKong keeps the two parsers in
// agreement.
func parseExecFast(args []string) (*ExecCmd, bool) {
	c := &ExecCmd{Format: "text"} // kong's default; --format goes to kong
	seen := map[string]bool{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if i+1 >= len(args) {
				return nil, false
			}
			c.Command = args[i:] // kong's passthrough keeps the "--" too
			return c, execFlagsConsistent(c, seen)
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
		if seen[name] {
			return nil, false
		}
		seen[name] = true
		switch name {
		case "default", "best-effort", "dry-run", "masks", "namespaces", "no-namespaces":
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

// execFlagsConsistent mirrors ExecCmd's xor groups; a conflict is left to
// kong, which explains it.
func execFlagsConsistent(c *ExecCmd, seen map[string]bool) bool {
	return !(seen["workspace"] && seen["policy"]) &&
		!(seen["policy"] && seen["default"]) &&
		!(seen["best-effort"] && seen["require-abi"]) &&
		!(seen["namespaces"] && seen["no-namespaces"])
}
