package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/jp-policy/jp-policy/internal/termstyle"

	"github.com/alecthomas/kong"

	"github.com/jp-policy/jp-policy/internal/nsroot"
)

// version is set with -ldflags "-X main.version=..." by release builds.
var version = "0.1.0-dev"

// Exit codes shared by every subcommand (docs/commands.md documents them).
const (
	exitOK     = 0
	exitFail   = 1 // lint errors, a denied check (exec: exitcodes.go)
	exitUsage  = 2 // bad flags, or config that cannot be loaded
	exitIntern = 3 // a bug or an I/O failure jp-policy did not expect
)

// exitError carries an exit code out of a command. A nil Err means the
// command already printed what the user needs to know.
type exitError struct {
	Code int
	Err  error
}

func (e *exitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

func (e *exitError) Unwrap() error { return e.Err }

// fail returns an exitError with the given code.
func fail(code int, err error) error { return &exitError{Code: code, Err: err} }

// Globals are flags every subcommand sees, plus the streams it writes to,
// so tests can run commands in-process.
type Globals struct {
	Version kong.VersionFlag `help:"Print the version and exit."`
	// Color is read through colorize (output.go); see internal/termstyle.
	Color string `help:"Colour the output: auto (a terminal, unless NO_COLOR or TERM=dumb; FORCE_COLOR forces it), always or never." enum:"auto,always,never" default:"auto" placeholder:"WHEN"`

	Stdin  io.Reader `kong:"-"`
	Stdout io.Writer `kong:"-"`
	Stderr io.Writer `kong:"-"`
}

// CLI is the whole command line.
type CLI struct {
	Globals

	Lint      LintCmd      `cmd:"" help:"Check the config layers for policy problems (pre-commit, CI)."`
	Compile   CompileCmd   `cmd:"" help:"Compile the policy artifact and per-platform manifests."`
	Exec      ExecCmd      `cmd:"" help:"Run a command under a tool's compiled policy."`
	Diff      DiffCmd      `cmd:"" help:"Show what a config change grants: the grant-level diff of two compiled policies (exit 1 when a grant widened)."`
	Check     CheckCmd     `cmd:"" help:"Ask whether a path, URL, env var, config path or command is allowed."`
	Explain   ExplainCmd   `cmd:"" help:"Show a tool's compiled policy in human terms."`
	Config    ConfigCmd    `cmd:"" help:"Print the merged tool config with the origin of every rule."`
	Schema    SchemaCmd    `cmd:"" help:"Print the JSON Schema of the tool config jp-policy owns."`
	Rules     RulesCmd     `cmd:"" help:"List the lint rules, or describe one."`
	Mount     MountCmd     `cmd:"" help:"Mount an external path into the workspace for tools (RFD D43)."`
	Unmount   UnmountCmd   `cmd:"" help:"Remove a mount: its symlink, approval and rules."`
	Doctor    DoctorCmd    `cmd:"" help:"Say which kernel features exec needs are missing here, and how to enable them."`
	Approvals ApprovalsCmd `cmd:"" help:"List, approve or revoke external mount targets."`
	URI       URICmd       `cmd:"" name:"uri" help:"Print the attachment URI of a path (RFD D03)."`
	Learn     LearnCmd     `cmd:"" help:"Run a command observed and propose the least access it needs."`

	Completion CompletionCmd `cmd:"" help:"Print a shell completion script (bash, zsh or fish)."`
	Help       HelpCmd       `cmd:"" help:"Show the help of jp-policy or of a command (help check fs)."`
}

// HelpCmd is `jp-policy help [COMMAND...]`. parse turns the line into
// `[COMMAND...] --help` before kong reads it, so Run is reached only if
// that rewrite is bypassed.
type HelpCmd struct {
	Command []string `arg:"" optional:"" help:"The command to describe." placeholder:"COMMAND"`
}

// Run points at the help a rewritten line would have printed.
func (h *HelpCmd) Run(g *Globals) error {
	return fail(exitUsage, fmt.Errorf("run `jp-policy %s --help`", strings.Join(h.Command, " ")))
}

func main() {
	nsroot.Stage2Main() // returns unless this is the sandbox's re-exec (internal/nsroot)
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// fullGrammar forces the whole CLI model; tests set it to compare.
var fullGrammar = false

// run parses args, runs the chosen command and returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	line, code, done := parse(args, stdin, stdout, stderr)
	if done {
		return code
	}
	exited, code, err := line.run()
	if exited {
		return code
	}
	return exitCode(err, stderr)
}

// parsedLine is a command line ready to run.
type parsedLine struct {
	// exec is the exec command when the line is one, whichever parser
	// read it (FuzzExecArgvVerbatim checks its arguments).
	exec *ExecCmd
	// run runs the command; exited reports that kong's Exit hook fired
	// (help printed from a command), with code its status.
	run func() (exited bool, code int, err error)
}

// parse turns args into the command to run. done is true when parsing
// already decided the outcome (help, --version, a usage error), with code
// the exit code. For exec, the command's arguments are the raw bytes of
// args on every path (see exec_argv.go).
func parse(args []string, stdin io.Reader, stdout, stderr io.Writer) (line parsedLine, code int, done bool) {
	// A bare `jp-policy` prints the help, on stdout so it pages, and
	// exits 2 like any other missing argument (ruff and git do not exit 0
	// either), so a script whose command word went missing fails.
	bare := len(args) == 0
	if bare {
		args = []string{"--help"}
	}
	// `help [COMMAND...]` is `[COMMAND...] --help`, as in git and go: the
	// same text kong prints, exit 0.
	if args[0] == "help" {
		args = append(slices.Clone(args[1:]), "--help")
	}
	// exec is on the path of every tool call: skip kong's reflection when
	// the line is one the fast parser fully understands.
	if len(args) > 0 && args[0] == "exec" {
		if c, ok := parseExecFast(args[1:]); ok {
			g := &Globals{Stdin: stdin, Stdout: stdout, Stderr: stderr}
			return parsedLine{exec: c, run: func() (bool, int, error) { return false, 0, c.Run(g) }}, 0, false
		}
	}
	// lint runs in pre-commit hooks and editors: the same for its plain
	// lines (lint_fast.go).
	if len(args) > 0 && args[0] == "lint" && !fullGrammar {
		if c, color, ok := parseLintFast(args[1:]); ok {
			g := &Globals{Color: color, Stdin: stdin, Stdout: stdout, Stderr: stderr}
			return parsedLine{run: func() (bool, int, error) { return false, 0, c.Run(g) }}, 0, false
		}
	}
	var cli CLI
	var grammar any = &cli
	globals := &cli.Globals
	if len(args) > 0 && !fullGrammar {
		if g, gl, ok := commandGrammar(args[0]); ok {
			grammar, globals = g, gl
		}
	}
	globals.Stdin, globals.Stdout, globals.Stderr = stdin, stdout, stderr
	exited := false
	parser, err := kong.New(grammar,
		kong.Name("jp-policy"),
		kong.Description("Check, compile and enforce the tool access policy of the JP assistant CLI."),
		kong.UsageOnError(),
		kong.Vars{"version": version},
		kong.Writers(stdout, stderr),
		kong.Exit(func(c int) { exited = true; code = c }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
	)
	if err != nil {
		fmt.Fprintf(stderr, "jp-policy: internal error: %v\n", err)
		return line, exitIntern, true
	}
	ctx, err := parser.Parse(args)
	if exited {
		if bare {
			code = exitUsage
		}
		return line, code, true
	}
	if err != nil {
		fmt.Fprintf(stderr, "jp-policy: %s\n", termstyle.SafeLines(err.Error()))
		if args[0] == "exec" {
			// exec's own failures must not look like the command's.
			return line, exitRefused, true
		}
		return line, exitUsage, true
	}
	if c := selectedExec(ctx); c != nil {
		raw, err := rawPassthrough(args, c.Command)
		if err != nil {
			fmt.Fprintf(stderr, "jp-policy: %v\n", err)
			return line, exitRefused, true
		}
		c.Command = raw
		line.exec = c
	}
	line.run = func() (bool, int, error) {
		err := ctx.Run(globals)
		return exited, code, err
	}
	return line, 0, false
}

func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	if ee, ok := errors.AsType[*exitError](err); ok {
		if ee.Err != nil {
			fmt.Fprintf(stderr, "jp-policy: %s\n", termstyle.SafeLines(ee.Err.Error()))
		}
		return ee.Code
	}
	fmt.Fprintf(stderr, "jp-policy: %s\n", termstyle.SafeLines(err.Error()))
	return exitIntern
}
