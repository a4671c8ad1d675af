package launcher

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/jp-policy/jp-policy/policy"
)

// CommandDeniedError refuses a program the tool's `commands` do not allow.
// Rule names the rule that would allow the call, so the message can say
// exactly what to add.
type CommandDeniedError struct {
	Tool    string
	Program string   // argv[0] as given
	Path    string   // resolved executable
	Args    []string // argv[1:]
	// Key is the rule that matched the program but not its arguments, ""
	// when no rule names the program.
	Key     string
	Allowed [][]string // the matched rule's argument prefixes
}

func (e *CommandDeniedError) Error() string {
	name := filepath.Base(e.Program)
	if e.Key == "" {
		return fmt.Sprintf("command %q (%s) is not in tool %q's commands; it would be allowed by [conversation.tools.%s.access.commands.%s]",
			e.Program, e.Path, e.Tool, tomlKey(e.Tool), tomlKey(name))
	}
	shown := make([]string, len(e.Allowed))
	for i, p := range e.Allowed {
		shown[i] = "[" + strings.Join(quoteAll(p), ", ") + "]"
	}
	return fmt.Sprintf("command %q: arguments %q are not allowed by commands.%s (args = [%s]); it would be allowed by adding [%s] to conversation.tools.%s.access.commands.%s.args",
		e.Program, e.Args, tomlKey(e.Key), strings.Join(shown, ", "), strings.Join(quoteAll(e.Args), ", "), tomlKey(e.Tool), tomlKey(e.Key))
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// tomlKey quotes a key that is not a bare TOML key.
func tomlKey(k string) string {
	for _, r := range k {
		if !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return fmt.Sprintf("%q", k)
		}
	}
	if k == "" {
		return `""`
	}
	return k
}

// CheckCommand decides whether argv may run under commands. A nil map
// allows any program (RFD 075). A rule key without '/' names a program as
// PATH finds it: it matches when argv[0] resolves to the same file as the
// key does, so `./git` in the workspace is not `git`. A key with '/'
// matches the program's resolved path. resolved is argv[0] resolved
// against PATH. It returns the matched rule (nil when commands is nil).
func CheckCommand(tool string, commands map[string]policy.CommandRule, argv []string, resolved string) (*policy.CommandRule, error) {
	if commands == nil {
		return nil, nil
	}
	keys := make([]string, 0, len(commands))
	for k := range commands {
		keys = append(keys, k)
	}
	sort.Strings(keys) // deterministic messages when several keys match
	target := canonical(resolved)
	var (
		nameKey string
		nameHit *policy.CommandRule
	)
	for _, k := range keys {
		if !programMatches(k, target) {
			continue
		}
		rule := commands[k]
		if argsAllowed(rule.Args, argv[1:]) {
			return &rule, nil
		}
		if nameKey == "" {
			nameKey, nameHit = k, &rule
		}
	}
	e := &CommandDeniedError{Tool: tool, Program: argv[0], Path: resolved, Args: argv[1:]}
	if nameHit != nil {
		e.Key, e.Allowed = nameKey, nameHit.Args
	}
	return nil, e
}

func programMatches(key, target string) bool {
	if target == "" {
		return false
	}
	if strings.ContainsRune(key, '/') {
		return canonical(key) == target
	}
	p, err := lookPath(key)
	if err != nil {
		return false
	}
	return canonical(p) == target
}

// canonical resolves symlinks so that /bin/sh and /usr/bin/sh compare
// equal; it returns "" when the path cannot be resolved.
func canonical(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return ""
	}
	c, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return ""
	}
	return c
}

// argsAllowed applies RFD 075's argument prefixes: nil allows anything; a
// prefix ending in "**" matches any arguments that start with the rest of
// it; any other entry must equal the arguments exactly.
func argsAllowed(prefixes [][]string, args []string) bool {
	if prefixes == nil {
		return true
	}
	for _, p := range prefixes {
		if n := len(p); n > 0 && p[n-1] == "**" {
			if len(args) >= n-1 && equal(p[:n-1], args[:n-1]) {
				return true
			}
			continue
		}
		if equal(p, args) {
			return true
		}
	}
	return false
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// lookPath resolves a program name the way the child's execve will see
// it: os/exec's search of PATH (which also refuses a result found only
// through "." in PATH).
func lookPath(name string) (string, error) {
	p, err := exec.LookPath(name)
	if err != nil {
		return "", &NotFoundError{Name: name, Err: err}
	}
	return p, nil
}

// NotFoundError says the command could not be found or is not executable.
type NotFoundError struct {
	Name string
	Err  error
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("cannot run %q: %v", e.Name, e.Err)
}

func (e *NotFoundError) Unwrap() error { return e.Err }
