package launcher

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/jp-policy/jp-policy/internal/denyhint"

	"github.com/jp-policy/jp-policy/internal/policy"
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
		return fmt.Sprintf("command %q (%s) is not in tool %q's commands; it would be allowed by [%s.%s]",
			e.Program, e.Path, e.Tool, denyhint.AccessKey(e.Tool, "commands"), denyhint.TOMLKey(name))
	}
	shown := make([]string, len(e.Allowed))
	for i, p := range e.Allowed {
		shown[i] = denyhint.TOMLArray(p)
	}
	return fmt.Sprintf("command %q: arguments %q are not allowed by commands.%s (args = [%s]); it would be allowed by adding %s to %s.%s.args",
		e.Program, e.Args, denyhint.TOMLKey(e.Key), strings.Join(shown, ", "), denyhint.TOMLArray(e.Args), denyhint.AccessKey(e.Tool, "commands"), denyhint.TOMLKey(e.Key))
}

// CheckCommand decides whether argv may run under commands, with RFD
// 075's semantics as implemented by policy.MatchCommand (a nil map allows
// any program; a bare-name key matches the base name of argv[0] or of the
// resolved path, an absolute key the path itself; a final "**" in an args
// prefix allows any rest). resolved is argv[0] resolved against PATH. It
// returns the rule that allowed the program (nil when commands is nil).
func CheckCommand(tool string, commands map[string]policy.CommandRule, argv []string, resolved string) (*policy.CommandRule, error) {
	if commands == nil {
		return nil, nil
	}
	key, ok := policy.MatchCommand(commands, argv, resolved)
	if ok {
		rule := commands[key]
		return &rule, nil
	}
	e := &CommandDeniedError{Tool: tool, Program: argv[0], Path: resolved, Args: argv[1:]}
	if key != "" {
		e.Key, e.Allowed = key, commands[key].Args
	}
	return nil, e
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
	// Hint: as ExecError's (in the namespaced root a program outside the
	// grants is not there at all).
	Hint string
}

func (e *NotFoundError) Error() string {
	if e.Hint != "" {
		return fmt.Sprintf("cannot run %q: %v\n%s", e.Name, e.Err, e.Hint)
	}
	return fmt.Sprintf("cannot run %q: %v", e.Name, e.Err)
}

func (e *NotFoundError) Unwrap() error { return e.Err }
