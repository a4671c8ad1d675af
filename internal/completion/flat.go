package completion

import "strings"

// node is one Command flattened for the script generators: flags include
// the ancestors' (kong accepts them after a subcommand), children are
// resolved to node IDs, and a branching argument child stands in as the
// first positional so it gets completed.
type node struct {
	id       string // words from the root joined by spaces; "" is the root
	cmd      *Command
	flags    []Flag // own flags first, then the parent's, and so on
	children []*node
	branch   *node // the ArgumentNode child, if any
	args     []Arg
}

// flatten lists every node of the tree depth-first in kong's order, which
// is the order the scripts' case tables follow.
func flatten(root *Command) []*node {
	var out []*node
	var walk func(c *Command, id string, inherited []Flag) *node
	walk = func(c *Command, id string, inherited []Flag) *node {
		n := &node{id: id, cmd: c, args: c.Args}
		n.flags = uniqueFlags(append(append([]Flag(nil), c.Flags...), inherited...))
		out = append(out, n)
		for _, child := range c.Commands {
			name := child.Name
			if child.Branch {
				name = "<" + child.Name + ">"
			}
			cn := walk(child, strings.TrimSpace(id+" "+name), n.flags)
			if child.Branch {
				if n.branch == nil {
					n.branch = cn
				}
				continue
			}
			n.children = append(n.children, cn)
		}
		if n.branch != nil && len(n.args) == 0 {
			n.args = []Arg{{Name: n.branch.cmd.Name, Help: n.branch.cmd.Help, Value: n.branch.cmd.BranchArg}}
		}
		return n
	}
	walk(root, "", nil)
	return out
}

// spellings lists every way to write a flag that takes a value, for the
// tables that recognise a typed flag: long name, aliases, short name.
func (f Flag) spellings() []string {
	s := []string{"--" + f.Name}
	for _, a := range f.Aliases {
		s = append(s, "--"+a)
	}
	if f.Short != 0 {
		s = append(s, "-"+string(f.Short))
	}
	return s
}

// candidates are what a flag offers when the user types "-": the long
// name, its negation and the short name; aliases are accepted but not
// offered, as --help does not show them either.
func (f Flag) candidates() []string {
	s := []string{"--" + f.Name}
	if f.Negation != "" {
		s = append(s, "--"+f.Negation)
	}
	if f.Short != 0 {
		s = append(s, "-"+string(f.Short))
	}
	return s
}

// argSlot says how positionals from position `from` (0-based) on are
// completed: just that one, or every later one too when variadic. pt
// marks a passthrough argument, after which our flags are not parsed.
type argSlot struct {
	from     int // first position this slot covers
	variadic bool
	value    Value
	pt       bool
}

// slots turns n's positionals into position ranges. A variadic command
// argument becomes two slots: the command word, then its arguments, which
// complete as files the way a shell does after a command name.
func (n *node) slots() []argSlot {
	var out []argSlot
	for i, a := range n.args {
		out = append(out, argSlot{from: i, value: a.Value, pt: a.Passthrough, variadic: a.Variadic && a.Value.Kind != KindCommand})
		if a.Variadic && a.Value.Kind == KindCommand {
			out = append(out, argSlot{from: i + 1, value: Value{Kind: KindFile}, pt: a.Passthrough, variadic: true})
		}
		if a.Variadic {
			break // kong allows nothing after a variadic argument
		}
	}
	return out
}

// lookup pairs every name and alias of n's children with the child's
// node ID, in kong's order.
func (n *node) lookup() (byWord [][2]string) {
	for _, c := range n.children {
		byWord = append(byWord, [2]string{c.cmd.Name, c.id})
		for _, a := range c.cmd.Aliases {
			byWord = append(byWord, [2]string{a, c.id})
		}
	}
	return byWord
}

// uniqueFlags drops a flag spelling already seen closer to the node, so a
// subcommand's --format shadows the root's in the tables like in kong.
func uniqueFlags(flags []Flag) []Flag {
	seen := map[string]bool{}
	var out []Flag
	for _, f := range flags {
		if seen[f.Name] {
			continue
		}
		seen[f.Name] = true
		out = append(out, f)
	}
	return out
}
