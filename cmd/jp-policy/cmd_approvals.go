package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/jp-policy/jp-policy/internal/approvals"
	"github.com/jp-policy/jp-policy/policy"
)

// ApprovalsCmd lists, pre-seeds or withdraws mount approvals without a
// terminal prompt.
type ApprovalsCmd struct {
	Workspace string `placeholder:"DIR" help:"Workspace root (default: the nearest ancestor with a .jp directory)." type:"path"`
	Approvals string `placeholder:"FILE" help:"approvals.json (default: JP's user-workspace storage)." type:"path"`
	JSON      bool   `name:"json" help:"list: print JSON."`
	Action    string `arg:"" optional:"" enum:"list,approve,revoke" default:"list" help:"list (default), approve or revoke."`
	RulePath  string `arg:"" optional:"" name:"rule-path" help:"Workspace-relative path of the external rule (the symlink), for approve and revoke."`
}

// Run performs the action.
func (c *ApprovalsCmd) Run(g *Globals) error {
	if (c.Action == "list") != (c.RulePath == "") {
		return fail(exitUsage, fmt.Errorf("usage: approvals list | approve RULE_PATH | revoke RULE_PATH"))
	}
	env, files, _, err := mountContext(c.Workspace, "", c.Approvals, false)
	var noID *approvals.NoIDError
	if errors.As(err, &noID) && c.Action == "list" {
		// Without .jp/.id JP has no storage for this workspace, so
		// nothing can have been approved: an empty list, not an error.
		if c.JSON {
			printJSON(g.Stdout, []approvals.Binding{})
			return nil
		}
		fmt.Fprintf(g.Stdout, "no approvals: the workspace %s has no .jp/.id (to record one, %s)\n", noID.Root, noID.Fix())
		return nil
	}
	if err != nil {
		return fail(exitUsage, err)
	}
	store, warns, err := approvals.Load(files.Approvals)
	if err != nil {
		return fail(exitUsage, err)
	}
	for _, w := range warns {
		fmt.Fprintf(g.Stderr, "jp-policy: %s\n", w)
	}
	switch c.Action {
	case "list":
		bs := approvals.ListBindings(env.Root, store)
		if c.JSON {
			if bs == nil {
				bs = []approvals.Binding{}
			}
			printJSON(g.Stdout, bs)
			return nil
		}
		if len(bs) == 0 {
			fmt.Fprintf(g.Stdout, "no approvals in %s\n", files.Approvals)
		}
		stale := false
		for _, b := range bs {
			switch b.Status {
			case approvals.BindingOK:
				fmt.Fprintf(g.Stdout, "%s -> %s  ok (approved %s)\n", b.RulePath, b.Approved, b.ApprovedAt.Format(time.RFC3339))
			case approvals.BindingRetargeted:
				stale = true
				fmt.Fprintf(g.Stdout, "%s -> %s  RETARGETED: now %s; re-approve with `jp-policy approvals approve %s`\n", b.RulePath, b.Approved, b.Current, b.RulePath)
			default:
				stale = true
				fmt.Fprintf(g.Stdout, "%s -> %s  BROKEN: %s\n", b.RulePath, b.Approved, b.Problem)
			}
		}
		if stale {
			// Scripts can tell "every binding still holds" from exit 0.
			return fail(exitFail, nil)
		}
		return nil
	case "approve":
		rp, target, before, err := approvals.ApproveRule(env.Root, c.RulePath, store, time.Now())
		if err != nil {
			return fail(exitUsage, err)
		}
		if before.Kind == approvals.Approved {
			fmt.Fprintf(g.Stdout, "%s -> %s already approved\n", rp, target)
			return nil
		}
		// The user asked for this approval by name, which is the
		// explicit consent a corrupt store may be replaced for.
		if err := store.Save(true); err != nil {
			return fail(exitUsage, err)
		}
		if before.Kind == approvals.Retargeted {
			fmt.Fprintf(g.Stdout, "approved %s -> %s (was %s)\n", rp, target, before.Previous)
		} else {
			fmt.Fprintf(g.Stdout, "approved %s -> %s\n", rp, target)
		}
		return nil
	default: // revoke
		rp := c.RulePath
		if lex, err := policy.LexicalRel(rp); err == nil {
			rp = lex
		}
		if !store.Revoke(rp) {
			return fail(exitUsage, fmt.Errorf("no approval for %s in %s", c.RulePath, files.Approvals))
		}
		if err := store.Save(false); err != nil {
			return fail(exitUsage, err)
		}
		fmt.Fprintf(g.Stdout, "revoked %s\n", rp)
		return nil
	}
}
