// Package completion writes shell completion scripts (bash, zsh, fish) for
// a kong command line.
//
// It owns two steps. FromKong walks kong's model of the CLI (commands,
// aliases, flags with their short names, positional arguments, enums,
// passthrough arguments) into a small Command tree that holds only what a
// shell needs; Write renders that tree as a script for one shell. Because
// the tree is taken from kong at run time, a subcommand or flag added to
// the CLI shows up in the completions without touching this package.
//
// Every script has the same shape: a fixed engine that walks the words
// already typed (skipping flag values, following subcommands and aliases,
// counting positionals, stopping flag parsing at "--" or a passthrough
// argument), plus generated lookup functions made of case/switch tables.
// The output is deterministic: the same tree always gives the same bytes.
//
// How a value is completed is its Kind. FromKong infers it from an
// explicit `completion:"file|dir|tool|command|none"` struct tag, then an
// enum, then kong's path types (type:"path", "existingfile",
// "existingdir", "filecontent", kong.FileContentFlag, *os.File), then the
// flag's name or placeholder (tool, path, file, dir, workspace, ...).
// Anything else completes to nothing rather than to a guess.
package completion
