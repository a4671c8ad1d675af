package completion

import (
	"slices"
	"strings"
)

// Kind says how the value of a flag or positional argument is completed.
type Kind string

const (
	// KindNone offers nothing: the value is free text (a URL, a name).
	KindNone Kind = "none"
	// KindFile completes file and directory names.
	KindFile Kind = "file"
	// KindDir completes directory names only.
	KindDir Kind = "dir"
	// KindEnum completes one of a fixed list of words.
	KindEnum Kind = "enum"
	// KindCommand completes executable names on $PATH, for arguments
	// that name a program to run (`exec -- CMD ...`).
	KindCommand Kind = "command"
	// KindTool completes the tool names of the current workspace, which
	// the script gets by running the program with ListToolsArgs.
	KindTool Kind = "tool"
)

// ListToolsArgs are the arguments the scripts pass to the program itself
// to list tool names, one a line; the program must implement them.
const ListToolsArgs = "completion --list-tools"

// WorkspaceFlag is the long name of the flag whose value, typed earlier on
// the line, the scripts pass on as --workspace=VALUE when listing tools,
// so --tool offers the tools of that workspace.
const WorkspaceFlag = "workspace"

// Value is what a flag or positional argument takes.
type Value struct {
	Kind Kind
	// Enum holds the allowed words when Kind is KindEnum, in kong's order.
	Enum []string
}

// Flag is one flag as a shell sees it.
type Flag struct {
	// Name is the long name without dashes ("tool" for --tool).
	Name    string
	Aliases []string
	// Short is the one-letter name, or 0.
	Short rune
	// Negation is the long name of the negated form without dashes
	// ("no-color"), or "" when the flag is not negatable.
	Negation string
	Help     string
	// Value is nil for flags that take no value (booleans, counters).
	Value *Value
}

// Arg is one positional argument.
type Arg struct {
	Name  string
	Help  string
	Value Value
	// Variadic arguments (slices) take every remaining word.
	Variadic bool
	// Passthrough arguments take every remaining word verbatim, flags
	// included, so completion stops offering our own flags there.
	Passthrough bool
}

// Command is one node of the command tree: the program itself, a
// subcommand, or a branching positional argument (kong's ArgumentNode).
type Command struct {
	Name    string
	Aliases []string
	Help    string
	// Flags are the flags declared on this node only. Flags of ancestors
	// are valid too (kong accepts them after a subcommand); the scripts
	// add them when they flatten the tree.
	Flags []Flag
	Args  []Arg
	// Commands are the children in kong's order.
	Commands []*Command
	// Branch is set for a kong ArgumentNode: any word in this position
	// selects it, and BranchArg says how that word is completed.
	Branch    bool
	BranchArg Value
	// Passthrough commands hand every later word to the command
	// verbatim, so flags are no longer ours after it.
	Passthrough bool
}

// ToolNames prepares tool names for the --list-tools output: sorted, and
// without names a shell could not take as one word per line.
func ToolNames(names []string) []string {
	var out []string
	for _, n := range names {
		if n != "" && !strings.ContainsFunc(n, func(r rune) bool { return r == '\n' || r == '\r' || r == 0 }) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
