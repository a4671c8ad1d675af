package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jp-policy/jp-policy/config"
	"github.com/jp-policy/jp-policy/internal/configdelta"
	"github.com/jp-policy/jp-policy/policy"
	"github.com/jp-policy/jp-policy/tomlpos"
)

// CheckConfigDeltaCmd is `check config-delta FILE|-`: would JP accept this
// tool outcome's config and unset, and would it ask first? Exit 0 =
// allowed, 1 = a leaf is refused, 2 = invalid outcome or usage.
type CheckConfigDeltaCmd struct {
	File   string `arg:"" help:"Tool outcome JSON ('-' for stdin)." placeholder:"FILE|-"`
	Format string `help:"Output format: text or json (also chosen by check --json)." enum:"text,json" default:"text"`
}

func (c *CheckConfigDeltaCmd) Run(g *Globals, cc *CheckCmd) error {
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
		var se *tomlpos.SyntaxError
		if errors.As(err, &se) {
			return fail(exitUsage, fmt.Errorf("check config-delta: %w", err))
		}
		return fail(exitIntern, err)
	}
	root, access, err := cc.load(g)
	if err != nil {
		return err
	}
	k, err := policy.NewChecker(root, access)
	if err != nil {
		return fail(exitUsage, fmt.Errorf("check: %w", err))
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
	if c.Format == "json" || cc.JSON {
		out, err := json.Marshal(r)
		if err != nil {
			return fail(exitIntern, err)
		}
		fmt.Fprintf(g.Stdout, "%s\n", out)
	} else if err := r.WriteText(g.Stdout); err != nil {
		return fail(exitIntern, err)
	}
	switch {
	case r.Reason == configdelta.ReasonInvalid:
		return fail(exitUsage, nil)
	case !r.Allowed:
		return fail(exitFail, nil)
	}
	return nil
}
