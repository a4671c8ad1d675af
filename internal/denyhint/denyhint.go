package denyhint

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jp-policy/jp-policy/internal/tomlquote"
)

// MaxLines bounds what Hints returns.
const MaxLines = 10

// Grant is one fs grant of the tool, as an absolute path and its rights.
type Grant struct {
	Path                 string
	Read, Write, Execute bool
}

// Facts is what exec knows about a finished run.
type Facts struct {
	Tool string
	// Argv is the command as given; Program is argv[0] resolved.
	Argv    []string
	Program string
	// Namespaced: the run took the namespaced path; Proxied: its only
	// way out was the filtering proxy (HTTP_PROXY and HTTPS_PROXY).
	Namespaced, Proxied bool
	// NetRules counts the tool's net allow rules.
	NetRules int
	Grants   []Grant
	// Home is the user's real home ("" unknown); Root the workspace's.
	Home, Root string
	// Dropped are the names of variables exec's environment held that
	// the policy did not pass.
	Dropped []string
	// Exists reports whether a path exists on the host (nil: none do).
	Exists func(string) bool
}

// cache is a directory a toolchain writes, relative to the home.
type cache struct {
	rel, name, what, mode string
}

// family is what Hints knows about a kind of program.
type family struct {
	caches []cache
	env    []string // variable name prefixes (a trailing * is a prefix)
	// net reports whether the command fetches from the network, and the
	// hosts it needs.
	net func(args []string) (bool, []string)
	// metadata: the command sets modes or times on what it writes.
	metadata func(args []string) bool
	// proxyAware: the program's client reads HTTP_PROXY.
	proxyAware bool
	// gitWrite: the command writes the repository's .git.
	gitWrite func(args []string) bool
}

func hasAny(args []string, words ...string) bool {
	for _, a := range args {
		if slices.Contains(words, a) {
			return true
		}
	}
	return false
}

func first(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

var families = map[string]family{
	"go": {
		caches: []cache{
			{".cache/go-build", "gocache", "Go's build cache (GOCACHE)", "rwx"},
			{"go/pkg", "gopkg", "Go's module cache and checksum database (GOMODCACHE, pkg/sumdb)", "rw"},
		},
		env: []string{"GO*", "CGO_*"},
		net: func(a []string) (bool, []string) {
			switch first(a) {
			case "mod", "get", "install", "build", "test", "run", "vet", "list":
				return true, []string{"proxy.golang.org", "sum.golang.org"}
			}
			return false, nil
		},
		proxyAware: true,
	},
	"npm": {
		caches: []cache{{".npm", "npm-cache", "npm's cache", "rw"}},
		env:    []string{"npm_config_*", "NPM_*", "NODE_*"},
		net: func(a []string) (bool, []string) {
			if hasAny(a, "--offline") {
				return false, nil
			}
			return hasAny(a, "install", "i", "ci", "update", "add", "exec", "view", "publish"), []string{"registry.npmjs.org"}
		},
		metadata:   func(a []string) bool { return hasAny(a, "install", "i", "ci", "update", "add") },
		proxyAware: true,
	},
	"node": {env: []string{"NODE_*"}},
	"pip": {
		caches: []cache{{".cache/pip", "pip-cache", "pip's cache", "rw"}},
		env:    []string{"PIP_*", "PYTHON*", "VIRTUAL_ENV"},
		net: func(a []string) (bool, []string) {
			return hasAny(a, "install", "download", "wheel") && !hasAny(a, "--no-index"), []string{"pypi.org", "files.pythonhosted.org"}
		},
		metadata:   func(a []string) bool { return hasAny(a, "install") },
		proxyAware: true,
	},
	"python": {
		env:        []string{"PYTHON*", "VIRTUAL_ENV"},
		metadata:   func(a []string) bool { return len(a) > 1 && a[0] == "-m" && a[1] == "venv" },
		proxyAware: true,
	},
	"cargo": {
		caches: []cache{
			{".cargo/registry", "cargo-registry", "cargo's registry cache", "rw"},
			{".cargo/git", "cargo-git", "cargo's git checkouts", "rw"},
		},
		env: []string{"CARGO_*", "RUSTUP_*", "RUSTFLAGS"},
		net: func(a []string) (bool, []string) {
			if hasAny(a, "--offline", "--frozen") {
				return false, nil
			}
			return hasAny(a, "build", "check", "test", "run", "fetch", "update", "install"), []string{"index.crates.io", "static.crates.io"}
		},
		proxyAware: true,
	},
	"git": {
		env: []string{"GIT_*", "SSH_AUTH_SOCK"},
		net: func(a []string) (bool, []string) {
			return hasAny(a, "clone", "fetch", "pull", "push", "ls-remote"), nil
		},
		gitWrite: func(a []string) bool {
			return hasAny(a, "add", "commit", "rm", "mv", "checkout", "switch", "merge", "rebase", "reset", "stash", "tag", "branch", "fetch", "pull", "cherry-pick", "revert", "am", "restore", "gc", "init")
		},
		proxyAware: true,
	},
	"curl":  {net: func([]string) (bool, []string) { return true, nil }, proxyAware: true},
	"wget":  {net: func([]string) (bool, []string) { return true, nil }, proxyAware: true},
	"tar":   {metadata: func(a []string) bool { return hasAny(a, "-x", "x", "--extract") || strings.Contains(first(a), "x") }},
	"cp":    {metadata: func(a []string) bool { return hasAny(a, "-a", "-p", "--archive", "--preserve") }},
	"rsync": {metadata: func([]string) bool { return true }},
	"install": {
		metadata: func([]string) bool { return true },
	},
	"chmod": {metadata: func([]string) bool { return true }},
	"touch": {metadata: func([]string) bool { return true }},
}

// aliases map program names to a family.
var aliases = map[string]string{
	"npx": "npm", "yarn": "npm", "pnpm": "npm", "pip3": "pip",
	"python3": "python", "rustc": "cargo", "rustup": "cargo",
}

// familyOf is the family of the command, and the arguments that follow
// its name (python -m pip is pip).
func familyOf(f Facts) (string, []string) {
	name := path.Base(f.Program)
	if name == "." || name == "/" || name == "" {
		if len(f.Argv) == 0 {
			return "", nil
		}
		name = path.Base(f.Argv[0])
	}
	var args []string
	if len(f.Argv) > 1 {
		args = f.Argv[1:]
	}
	// python3.11 -> python3; npm-cli.js is not seen (npm's bin is npm).
	if strings.HasPrefix(name, "python") {
		name = "python"
	}
	if a, ok := aliases[name]; ok {
		name = a
	}
	if name == "python" && len(args) > 1 && args[0] == "-m" && (args[1] == "pip" || args[1] == "pip3") {
		return "pip", args[2:]
	}
	return name, args
}

// Hints returns at most MaxLines lines, each naming what the policy
// likely denied and how to allow it. None when nothing known applies.
func Hints(f Facts) []string {
	fam, args := familyOf(f)
	spec, known := families[fam]
	var out []string
	add := func(format string, a ...any) { out = append(out, printable(fmt.Sprintf(format, a...))) }

	for _, c := range spec.caches {
		if f.Home == "" {
			break
		}
		p := path.Join(f.Home, c.rel)
		if f.Exists == nil || !f.Exists(p) {
			continue
		}
		g := f.covering(p)
		need := c.mode
		switch {
		case g == nil:
			add("files: ~/%s (%s) is outside tool %q's grants; to use it: jp-policy mount %s:%s=~/%s:%s && jp-policy compile", c.rel, c.what, f.Tool, f.Tool, c.name, c.rel, need)
		case !g.Write || strings.Contains(need, "x") && !g.Execute:
			add("files: ~/%s (%s) is granted to tool %q without %s; set %s on the rule that grants it, then jp-policy compile", c.rel, c.what, f.Tool, missing(g, need), missingKeys(g, need))
		}
	}

	if spec.gitWrite != nil && f.Namespaced && f.Root != "" && spec.gitWrite(args) {
		dotgit := path.Join(f.Root, ".git")
		if g := f.covering(dotgit); g != nil && g.Write && g.Path != dotgit && !strings.HasPrefix(g.Path, dotgit+"/") {
			add("files: %s is read-only for tool %q (protected: git runs hooks and reads config from it unsandboxed); a tool that commits needs a rule naming it: [[%s]] path = \".git\", read = true, write = true, then jp-policy compile", dotgit, f.Tool, AccessKey(f.Tool, "fs"))
		}
	}
	if spec.net != nil {
		if fetches, hosts := spec.net(args); fetches && f.NetRules == 0 {
			host := "HOST"
			if len(hosts) > 0 {
				host = hosts[0]
			}
			also := ""
			if len(hosts) > 1 {
				also = fmt.Sprintf(" (and one for %s)", strings.Join(hosts[1:], ", "))
			}
			add("network: tool %q has no net rule, so every connection was refused; allow a host with [[%s]] host = %s, scheme = \"https\", allow = true%s, then jp-policy compile", f.Tool, AccessKey(f.Tool, "net"), tomlquote.String(host), also)
		}
	}
	if f.Namespaced && f.Proxied && (!known || !spec.proxyAware) {
		add("network: %s reaches only what the tool's net rules grant, through the proxy or directly: an ungranted name does not resolve, an ungranted host:port refuses the connection, a plain-HTTP path outside a path_prefix gets 403; exec --log-net FILE records each decision", progName(f))
	}

	if spec.metadata != nil && !f.Namespaced && spec.metadata(args) && f.writes() {
		add("metadata: on the fast path (--no-namespaces) chmod, chown and utime are denied even inside write grants; %s sets modes or times: run without --no-namespaces where user namespaces are available (jp-policy doctor)", progName(f))
	}

	var env []string
	for _, name := range f.Dropped {
		for _, pat := range spec.env {
			if p, ok := strings.CutSuffix(pat, "*"); ok && strings.HasPrefix(name, p) || pat == name {
				env = append(env, name)
				break
			}
		}
	}
	if len(env) > 0 {
		slices.Sort(env)
		env = slices.Compact(env)
		names := strings.Join(env, ", ")
		add("env: %s set here but not passed to tool %q; pass each with [[conversation.tools.%s.access.env]] name = %q, read = true, then jp-policy compile", names, f.Tool, f.Tool, env[0])
	}
	if len(out) > MaxLines {
		out = out[:MaxLines]
	}
	return out
}

func progName(f Facts) string {
	if len(f.Argv) > 0 {
		return path.Base(f.Argv[0])
	}
	return path.Base(f.Program)
}

// covering is the deepest grant at or above p, or nil.
func (f Facts) covering(p string) *Grant {
	var best *Grant
	for i := range f.Grants {
		g := &f.Grants[i]
		if (p == g.Path || strings.HasPrefix(p, strings.TrimSuffix(g.Path, "/")+"/")) && (best == nil || len(g.Path) > len(best.Path)) {
			best = g
		}
	}
	return best
}

func (f Facts) writes() bool {
	for _, g := range f.Grants {
		if g.Write {
			return true
		}
	}
	return false
}

func missing(g *Grant, need string) string {
	var m []string
	if !g.Write {
		m = append(m, "write")
	}
	if strings.Contains(need, "x") && !g.Execute {
		m = append(m, "execute")
	}
	return strings.Join(m, " and ")
}

func missingKeys(g *Grant, need string) string {
	var m []string
	if !g.Write {
		m = append(m, "write = true")
	}
	if strings.Contains(need, "x") && !g.Execute {
		m = append(m, "execute = true")
	}
	return strings.Join(m, " and ")
}

// printable replaces what a terminal could act on (control characters,
// invalid UTF-8) with '?': program and variable names come from the
// caller's environment and the config.
func printable(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r == utf8.RuneError || !unicode.IsPrint(r) && r != ' ' }) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r == utf8.RuneError || !unicode.IsPrint(r) && r != ' ' {
			return '?'
		}
		return r
	}, s)
}

// AccessKey is the dotted TOML key of a tool's access table for section
// ("fs", "net", "env", "commands"), with the tool's name quoted where TOML
// needs it, as a hint names the table to edit.
func AccessKey(tool, section string) string {
	return "conversation.tools." + tomlquote.Key(tool) + ".access." + section
}

// TOMLKey is name as one TOML key, quoted where needed.
func TOMLKey(name string) string { return tomlquote.Key(name) }

// TOMLArray renders ss as a TOML array of strings, for a value to paste.
func TOMLArray(ss []string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = tomlquote.String(s)
	}
	return "[" + strings.Join(out, ", ") + "]"
}
