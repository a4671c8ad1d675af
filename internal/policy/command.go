package policy

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/jp-policy/jp-policy/internal/platform"
)

// AnyRest is the final element of an args prefix that allows any
// remaining arguments (RFD 075).
const AnyRest = "**"

// ValidateCommandArgs checks a CommandRule's args: "**" may only be the
// last element of a prefix. nil means any arguments; an empty list allows
// no invocation at all, which is legal but worth a lint warning.
func ValidateCommandArgs(args [][]string) error {
	for i, p := range args {
		for j, a := range p {
			if a == AnyRest && j != len(p)-1 {
				return fmt.Errorf("args[%d]: \"**\" must be the last element", i)
			}
			if strings.IndexByte(a, 0) >= 0 {
				return fmt.Errorf("args[%d][%d] contains a NUL byte", i, j)
			}
		}
	}
	return nil
}

func validateCommandKey(k string) error {
	if k == "" {
		return errors.New("program name is empty")
	}
	if strings.IndexByte(k, 0) >= 0 {
		return errors.New("program name contains a NUL byte")
	}
	if strings.ContainsAny(k, `/\`) && !filepath.IsAbs(k) {
		return fmt.Errorf("program %q: give a bare name or an absolute path", k)
	}
	return nil
}

// MatchCommand decides whether argv may run under cmds. A nil map allows
// any program. Otherwise the program must be a key: an absolute-path key
// matches argv[0] or resolvedPath exactly; a bare-name key is the program
// PATH finds for that name, so it matches argv[0] written as that bare
// name, or an explicit path (or a link) only when it resolves to the very
// file PATH finds for the name. A workspace `./cargo` is therefore not the
// `cargo` a rule allows. A path key wins over a name key, so a path rule's
// args cannot be dodged through the name. The arguments must then match
// one args prefix: element-wise equality, where a final "**" allows any
// rest and a prefix without it must match the whole argument list. nil
// args allow any arguments.
//
// program is the key that matched ("" when none did).
func MatchCommand(cmds map[string]CommandRule, argv []string, resolvedPath string) (program string, allowed bool) {
	return matchCommand(cmds, argv, resolvedPath, lookupProgram)
}

// lookupProgram is ResolveProgram; tests replace it to stay hermetic.
var lookupProgram = ResolveProgram

func commandKeys(cmds map[string]CommandRule) []string {
	keys := make([]string, 0, len(cmds))
	for k := range cmds {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// matchCommand is MatchCommand with lookup as the PATH search.
func matchCommand(cmds map[string]CommandRule, argv []string, resolvedPath string, lookup func(string) string) (program string, allowed bool) {
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
