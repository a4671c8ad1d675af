package policy

import (
	"errors"
	"fmt"
	"github.com/jp-policy/jp-policy/internal/rulematch"
	"path/filepath"
	"sort"
	"strings"
)

// AnyRest is the final element of an args prefix that allows any
// remaining arguments (RFD 075).
const AnyRest = rulematch.AnyRest

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
	return rulematch.MatchCommand(cmds, argv, resolvedPath, lookupProgram)
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
