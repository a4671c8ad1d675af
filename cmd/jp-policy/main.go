package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/alecthomas/kong"
)

// version is set with -ldflags "-X main.version=..." by release builds.
var version = "0.1.0-dev"

// Exit codes shared by every subcommand (the README documents them).
const (
	exitOK     = 0
	exitFail   = 1 // lint errors, a denied check, a refused exec
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
	Approvals ApprovalsCmd `cmd:"" help:"List, approve or revoke external mount targets."`
	URI       URICmd       `cmd:"" name:"uri" help:"Print the attachment URI of a path (RFD D03)."`

	Completion CompletionCmd `cmd:"" help:"Print a shell completion script (bash, zsh or fish)."`
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// fullGrammar forces the whole CLI model; tests set it to compare.
var fullGrammar = false

// run parses args, runs the chosen command and returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	// exec is on the path of every tool call: skip kong's reflection when
	// the line is one the fast parser fully understands.
	if len(args) > 0 && args[0] == "exec" {
		if c, ok := parseExecFast(args[1:]); ok {
			return exitCode(c.Run(&Globals{Stdin: stdin, Stdout: stdout, Stderr: stderr}), stderr)
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
		return exitIntern
	}
	ctx, err := parser.Parse(args)
	if exited {
		return code
	}
	if err != nil {
		fmt.Fprintf(stderr, "jp-policy: %v\n", err)
		return exitUsage
	}
	err = ctx.Run(globals)
	if exited {
		return code
	}
	return exitCode(err, stderr)
}

func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.Err != nil {
			fmt.Fprintf(stderr, "jp-policy: %v\n", ee.Err)
		}
		return ee.Code
	}
	fmt.Fprintf(stderr, "jp-policy: %v\n", err)
	return exitIntern
}
