package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/alecthomas/kong"

	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/configdelta"
	"github.com/jp-policy/jp-policy/internal/policy"
	"github.com/jp-policy/jp-policy/internal/tomlpos"
)

// compileToolPolicy compiles one tool's policy from the config layers and
// the approvals store; the compiler package sets it. root is the canonical
// workspace root; a nil access is an unrestricted tool. approvalsFile is
// "" for JP's default location.
var compileToolPolicy func(g *Globals, workspace, tool, approvalsFile string) (root string, access *policy.AccessPolicy, err error)

// CheckCmd asks the policy engine one question. Exit 0 = allowed, 1 =
// denied or rejected, 2 = usage or config error.
type CheckCmd struct {
	Workspace string `short:"w" help:"Workspace root (default: the nearest directory at or above the working directory that holds .jp/)." placeholder:"DIR"`
	Tool      string `short:"t" help:"Tool whose compiled policy to check against." placeholder:"TOOL"`
	Approvals string `help:"Approvals store to use instead of JP's (honours $JP_USER_DATA_DIR)." placeholder:"FILE" type:"path"`
	Root      string `help:"Workspace root for --access." placeholder:"DIR"`
	Access    string `help:"File holding an access object as a JP tool receives it ('-' for stdin); skips config." placeholder:"FILE"`
	Format    string `help:"Output format: text or json, one JSON object (docs/output.md)." enum:"text,json" default:"text"`
	JSON      bool   `name:"json" hidden:"" help:"Same as --format json."`
	Quiet     bool   `short:"q" help:"Print nothing; the exit status is the answer (0 allowed, 1 denied)."`

	Fs      CheckFsCmd      `cmd:"" name:"fs" help:"Check a filesystem capability on a workspace-relative path."`
	Net     CheckNetCmd     `cmd:"" help:"Check a network request URL."`
	Env     CheckEnvCmd     `cmd:"" help:"Check reading an environment variable."`
	Config  CheckConfigCmd  `cmd:"" help:"Check a config operation on a dot-separated config path."`
	Command CheckCommandCmd `cmd:"" help:"Check spawning a command: check ... command -- ARGV..."`

	ConfigDelta CheckConfigDeltaCmd `cmd:"" name:"config-delta" help:"Check a tool outcome's config delta (RFD 078): every leaf, the verdict and the apply mode."`
}

// AfterApply makes the parsed flags available to the subcommand's Run.
func (c *CheckCmd) AfterApply(ctx *kong.Context) error {
	ctx.Bind(c)
	return nil
}

// CheckFsCmd is `check fs OP PATH`.
type CheckFsCmd struct {
	Op   string `arg:"" enum:"read,create,update,delete,execute" help:"read, create, update, delete or execute."`
	Path string `arg:"" help:"Workspace-relative path."`
}

// CheckNetCmd is `check net URL`.
type CheckNetCmd struct {
	URL string `arg:"" name:"url" help:"Absolute URL."`
}

// CheckEnvCmd is `check env NAME`.
type CheckEnvCmd struct {
	Name string `arg:"" help:"Variable name."`
}

// CheckConfigCmd is `check config OP PATH`.
type CheckConfigCmd struct {
	Op   string `arg:"" enum:"read,write,delete" help:"read, write or delete."`
	Path string `arg:"" help:"Dot-separated config path."`
}

// CheckCommandCmd is `check command -- ARGV...`.
type CheckCommandCmd struct {
	Argv []string `arg:"" passthrough:"" help:"Program and arguments."`
}

func (c *CheckFsCmd) Run(g *Globals, cc *CheckCmd) error {
	var cp policy.Capability
	for _, x := range policy.Capabilities {
		if x.String() == c.Op {
			cp = x
		}
	}
	return cc.decide(g, func(k *policy.Checker) policy.Decision { return k.CheckFS(cp, c.Path) })
}

func (c *CheckNetCmd) Run(g *Globals, cc *CheckCmd) error {
	return cc.decide(g, func(k *policy.Checker) policy.Decision { return k.CheckNet(c.URL) })
}

func (c *CheckEnvCmd) Run(g *Globals, cc *CheckCmd) error {
	return cc.decide(g, func(k *policy.Checker) policy.Decision { return k.CheckEnv(c.Name) })
}

func (c *CheckConfigCmd) Run(g *Globals, cc *CheckCmd) error {
	return cc.decide(g, func(k *policy.Checker) policy.Decision { return k.CheckConfig(c.Op, c.Path) })
}

// CheckConfigDeltaCmd is `check config-delta FILE|-`: would JP accept this
// tool outcome's config and unset, and would it ask first? Exit 0 =
// allowed, 1 = a leaf is refused, 2 = invalid outcome or usage.
type CheckConfigDeltaCmd struct {
	File string `arg:"" help:"Tool outcome JSON ('-' for stdin)." placeholder:"FILE|-"`
}

func (c *CheckConfigDeltaCmd) Run(g *Globals, cc *CheckCmd) error {
	if c.File == "-" && cc.Access == "-" {
		return fail(exitUsage, errors.New("check config-delta: the outcome and --access cannot both come from stdin"))
	}
	data, err := readAccess(g, c.File)
	if err != nil {
		return fail(exitUsage, fmt.Errorf("check config-delta: %w", err))
	}
	name := c.File
	if name == "-" {
		name = "<stdin>"
	}
	o, envelope, err := configdelta.ParseOutcome(name, data)
	if err != nil {
		if _, ok := errors.AsType[*tomlpos.SyntaxError](err); ok {
			return fail(exitUsage, fmt.Errorf("check config-delta: %w", err))
		}
		return fail(exitIntern, err)
	}
	k, err := cc.checker(g)
	if err != nil {
		return err
	}
	var aliases *configdelta.Aliases
	if cc.Access == "" {
		// The compile above loaded the same layers, so this cannot fail
		// where it succeeded; a failure only costs alias resolution.
		if l, err := config.Load(configOptions(cc.Workspace, nil)); err == nil {
			aliases = configdelta.LoadAliases(l)
		}
	}
	r := configdelta.Check(k, o, envelope, aliases)
	if err := cc.print(g, r, func() error { return r.WriteText(g.Stdout) }); err != nil {
		return err
	}
	switch {
	case r.Reason == configdelta.ReasonInvalid:
		return fail(exitUsage, nil)
	case !r.Allowed:
		return fail(exitFail, nil)
	}
	return nil
}

func (c *CheckCommandCmd) Run(g *Globals, cc *CheckCmd) error {
	argv := c.Argv
	if len(argv) > 0 && argv[0] == "--" {
		argv = argv[1:]
	}
	if len(argv) == 0 {
		return fail(exitUsage, errors.New("check command: give the command after --"))
	}
	return cc.decide(g, func(k *policy.Checker) policy.Decision { return k.CheckCommand(argv) })
}

// print writes a check's answer as --format and --quiet ask: v as JSON,
// or text.
func (c *CheckCmd) print(g *Globals, v any, text func() error) error {
	switch {
	case c.Quiet:
		return nil
	case c.Format == "json" || c.JSON:
		return g.writeJSON(v)
	}
	if err := text(); err != nil {
		return fail(exitIntern, err)
	}
	return nil
}

// decide builds the checker, asks, prints and maps the answer to an exit
// code.
func (c *CheckCmd) decide(g *Globals, ask func(*policy.Checker) policy.Decision) error {
	k, err := c.checker(g)
	if err != nil {
		return err
	}
	d := ask(k)
	if err := c.print(g, d, func() error { _, err := io.WriteString(g.Stdout, d.Human()); return err }); err != nil {
		return err
	}
	if !d.Allowed {
		return fail(exitFail, nil)
	}
	return nil
}

// checker builds the engine for the policy the flags name.
func (c *CheckCmd) checker(g *Globals) (*policy.Checker, error) {
	root, access, err := c.load(g)
	if err != nil {
		return nil, err
	}
	k, err := policy.NewChecker(root, access)
	if err != nil {
		return nil, fail(exitUsage, fmt.Errorf("check: %w", err))
	}
	return k, nil
}

// load returns the workspace root and the tool's access object, from
// --access or from the compile pipeline.
func (c *CheckCmd) load(g *Globals) (string, *policy.AccessPolicy, error) {
	if c.Access != "" {
		if c.Tool != "" || c.Workspace != "" || c.Approvals != "" {
			return "", nil, fail(exitUsage, errors.New("check: --access takes --root, not --tool, --workspace or --approvals"))
		}
		if c.Root == "" {
			return "", nil, fail(exitUsage, errors.New("check: --access needs --root DIR, the workspace root the access object was compiled for"))
		}
		data, err := readAccess(g, c.Access)
		if err != nil {
			return "", nil, fail(exitUsage, fmt.Errorf("check: %w", err))
		}
		access, err := policy.ParseAccess(data)
		if err != nil {
			return "", nil, fail(exitUsage, fmt.Errorf("check: %s: %w", c.Access, err))
		}
		return c.Root, access, nil
	}
	if c.Root != "" {
		return "", nil, fail(exitUsage, errors.New("check: --root is only for --access; use --workspace"))
	}
	if c.Tool == "" {
		return "", nil, fail(exitUsage, errors.New("check: give --tool NAME (or --root DIR --access FILE)"))
	}
	if compileToolPolicy == nil {
		return "", nil, fail(exitUsage, errors.New("check: compiling a tool's policy from config is not available in this build; use --root DIR --access FILE"))
	}
	root, access, err := compileToolPolicy(g, c.Workspace, c.Tool, c.Approvals)
	if err != nil {
		if _, ok := errors.AsType[*exitError](err); ok {
			return "", nil, err
		}
		return "", nil, fail(exitUsage, fmt.Errorf("check: %w", err))
	}
	return root, access, nil
}

func readAccess(g *Globals, name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(io.LimitReader(g.Stdin, 64<<20))
	}
	return os.ReadFile(name)
}
