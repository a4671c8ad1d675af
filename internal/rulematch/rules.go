package rulematch

import (
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/jp-policy/jp-policy/internal/platform"
)

// EnvRule is RFD 076's environment grant: an exact name, or a prefix with
// a trailing '*'.
type EnvRule struct {
	Name string `json:"name"`
	Read bool   `json:"read"`
}

// CommandRule is RFD 075's subprocess grant for one program.
type CommandRule struct {
	// Args lists the allowed argument lists, each matched element by
	// element against the whole argument list; only a final "**" matches
	// any rest.
	// nil means any arguments.
	Args [][]string `json:"args"`
	// Envs narrows which of the tool's allowed variables reach this
	// program.
	Envs []string `json:"envs"`
}

// AnyRest is the final element of an args prefix that allows any
// remaining arguments (RFD 075).
const AnyRest = "**"

// MatchEnv returns the env rule that governs name, and whether it grants
// read. Specificity is the byte length of the rule's literal part; at
// equal length an exact rule beats a prefix rule; remaining ties go to the
// last rule. No match is (nil, false). Malformed rules (see
// policy.ValidateEnvName) never match. It does not allocate.
func MatchEnv(rules []EnvRule, name string) (rule *EnvRule, ok bool) {
	best, bestScore := -1, -1
	for i := range rules {
		n := rules[i].Name
		var score int
		if strings.HasSuffix(n, "*") {
			lit := n[:len(n)-1]
			if strings.IndexByte(lit, '*') >= 0 || !strings.HasPrefix(name, lit) {
				continue
			}
			score = 2 * len(lit)
		} else {
			if n != name || n == "" {
				continue
			}
			score = 2*len(n) + 1
		}
		if score >= bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		return nil, false
	}
	return &rules[best], rules[best].Read
}

// NameMatches applies RFD 076's env name syntax to a name list (the
// minimal set, a command's envs): a trailing '*' makes the rest a prefix,
// anything else is exact.
func NameMatches(pattern, name string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(name, prefix)
	}
	return pattern == name
}

// MatchCommand is policy.MatchCommand with lookup as the PATH search
// (ResolveProgram outside tests): see there for the semantics.
func MatchCommand(cmds map[string]CommandRule, argv []string, resolvedPath string, lookup func(string) string) (program string, allowed bool) {
	if len(argv) == 0 || argv[0] == "" {
		return "", false
	}
	if cmds == nil {
		return argv[0], true
	}
	key, ok := commandKey(cmds, argv[0], resolvedPath, lookup)
	if !ok {
		return "", false
	}
	return key, argsAllowed(cmds[key].Args, argv[1:])
}

func commandKey(cmds map[string]CommandRule, arg0, resolved string, lookup func(string) string) (string, bool) {
	for _, p := range []string{arg0, resolved} {
		if p != "" && filepath.IsAbs(p) {
			if _, ok := cmds[filepath.Clean(p)]; ok {
				return filepath.Clean(p), true
			}
		}
	}
	if !strings.ContainsAny(arg0, `/\`) {
		if k, ok := nameKey(cmds, arg0); ok {
			return k, true
		}
	}
	for _, p := range []string{arg0, resolved} {
		if p == "" {
			continue
		}
		k, ok := nameKey(cmds, filepath.Base(p))
		if !ok {
			continue
		}
		want := lookup(k)
		if want != "" && (sameProgram(want, resolved) || sameProgram(want, arg0)) {
			return k, true
		}
	}
	return "", false
}

// nameKey finds the bare-name key for name (on Windows without case or a
// trailing .exe).
func nameKey(cmds map[string]CommandRule, name string) (string, bool) {
	if _, ok := cmds[name]; ok {
		return name, true
	}
	if platform.Host == platform.Windows {
		trimmed := strings.TrimSuffix(strings.ToLower(name), ".exe")
		for k := range cmds {
			if strings.EqualFold(k, trimmed) {
				return k, true
			}
		}
	}
	return "", false
}

// sameProgram reports whether path p names the file want (already
// resolved by ResolveProgram).
func sameProgram(want, p string) bool {
	if p == "" || !filepath.IsAbs(p) {
		return false
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return p == want
}

func argsAllowed(prefixes [][]string, args []string) bool {
	if prefixes == nil {
		return true
	}
	for _, p := range prefixes {
		if argsMatch(p, args) {
			return true
		}
	}
	return false
}

func argsMatch(p, args []string) bool {
	rest := false
	if n := len(p); n > 0 && p[n-1] == AnyRest {
		p, rest = p[:n-1], true
	}
	if len(args) < len(p) || !rest && len(args) != len(p) {
		return false
	}
	for i := range p {
		if p[i] != args[i] {
			return false
		}
	}
	return true
}

// ResolveProgram returns the absolute, symlink-free path exec would run
// for name ("" when PATH has none).
func ResolveProgram(name string) string {
	p, err := exec.LookPath(name)
	if err != nil {
		return ""
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return p
}
