package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/jp-policy/jp-policy/internal/approvals"
	"github.com/jp-policy/jp-policy/internal/jpdirs"
	"github.com/jp-policy/jp-policy/internal/mount"
	"github.com/jp-policy/jp-policy/internal/policy"
	"github.com/jp-policy/jp-policy/internal/termstyle"
)

// ApprovalsCmd lists, pre-seeds or withdraws mount approvals without a
// terminal prompt. Its actions are kong subcommands (like `check fs|net`),
// so help, usage errors and completion come from kong; `list` is the
// default when none is named.
type ApprovalsCmd struct {
	Workspace string `short:"w" placeholder:"DIR" help:"Workspace root (default: the nearest directory at or above the working directory that holds .jp/)." type:"path"`
	Approvals string `placeholder:"FILE" help:"approvals.json (default: JP's user-workspace storage)." type:"path"`

	List    ApprovalsListCmd    `cmd:"" default:"withargs" help:"List the approved external targets and whether each link still leads there (the default)."`
	Approve ApprovalsApproveCmd `cmd:"" help:"Approve the target an external rule's symlink leads to now."`
	Revoke  ApprovalsRevokeCmd  `cmd:"" help:"Withdraw the approval of an external rule."`
}

// AfterApply makes the parent's flags available to the action's Run.
func (c *ApprovalsCmd) AfterApply(ctx *kong.Context) error {
	ctx.Bind(c)
	return nil
}

// ApprovalsListCmd is `approvals list`.
type ApprovalsListCmd struct {
	Format string `help:"Output format: text or json (docs/output.md)." enum:"text,json" default:"text"`
	JSON   bool   `name:"json" hidden:"" help:"Same as --format json."`
	Quiet  bool   `short:"q" help:"Print nothing; the exit status says whether every binding holds."`
}

// ApprovalsApproveCmd is `approvals approve RULE_PATH`.
type ApprovalsApproveCmd struct {
	RulePath string `arg:"" name:"rule-path" placeholder:"RULE_PATH" help:"Workspace-relative path of the external rule (the symlink)."`
	Quiet    bool   `short:"q" help:"Print nothing on success."`
}

// ApprovalsRevokeCmd is `approvals revoke RULE_PATH`.
type ApprovalsRevokeCmd struct {
	RulePath string `arg:"" name:"rule-path" placeholder:"RULE_PATH" help:"Workspace-relative path of the external rule (the symlink)."`
	Quiet    bool   `short:"q" help:"Print nothing on success."`
}

// store opens the approvals store the flags name; noID is set (and the
// store nil) when the workspace has no .jp/.id, so JP has no storage.
func (c *ApprovalsCmd) store(g *Globals) (env mount.Env, path string, store *approvals.Store, noID *approvals.NoIDError, err error) {
	env, files, _, err := mountContext(c.Workspace, "", c.Approvals, false)
	if errors.As(err, &noID) {
		return env, "", nil, noID, nil
	}
	if err != nil {
		return env, "", nil, nil, fail(exitUsage, err)
	}
	store, warns, err := approvals.Load(files.Approvals)
	if err != nil {
		return env, "", nil, nil, fail(exitUsage, err)
	}
	for _, w := range warns {
		fmt.Fprintf(g.Stderr, "jp-policy: %s\n", w)
	}
	return env, files.Approvals, store, nil, nil
}

// writableStore is store for approve and revoke, which cannot work
// without JP's storage for the workspace.
func (c *ApprovalsCmd) writableStore(g *Globals) (mount.Env, string, *approvals.Store, error) {
	env, path, store, noID, err := c.store(g)
	if err == nil && noID != nil {
		err = fail(exitUsage, noID)
	}
	return env, path, store, err
}

// Run lists the bindings; exit 1 when one is retargeted or broken.
func (c *ApprovalsListCmd) Run(g *Globals, ac *ApprovalsCmd) error {
	asJSON := c.Format == "json" || c.JSON
	env, path, store, noID, err := ac.store(g)
	if err != nil {
		return err
	}
	var bs []approvals.Binding
	if store != nil {
		bs = approvals.ListBindings(env.Root, store)
	}
	stale := false
	for _, b := range bs {
		stale = stale || b.Status != approvals.BindingOK
	}
	switch {
	case c.Quiet:
	case asJSON:
		if bs == nil {
			bs = []approvals.Binding{}
		}
		if err := g.writeJSON(bs); err != nil {
			return err
		}
	case noID != nil:
		// Without .jp/.id JP has no storage for this workspace, so
		// nothing can have been approved: an empty list, not an error.
		fmt.Fprintf(g.Stdout, "no approvals: the workspace %s %s (to record one, %s)\n", noID.Root, noID.Missing(), noID.Fix())
	case len(bs) == 0:
		fmt.Fprintf(g.Stdout, "no approvals in %s\n", path)
	default:
		writeBindings(g, bs)
	}
	if stale {
		// Scripts can tell "every binding still holds" from exit 0.
		return fail(exitFail, nil)
	}
	return nil
}

// writeBindings prints one line per binding, the status word coloured
// when --color allows.
func writeBindings(g *Globals, bs []approvals.Binding) {
	paint := termstyle.Painter{On: g.colorize(g.Stdout)}
	for _, b := range bs {
		switch b.Status {
		case approvals.BindingOK:
			fmt.Fprintf(g.Stdout, "%s -> %s  %s (approved %s)\n", b.RulePath, b.Approved, paint.Good("ok"), b.ApprovedAt.Format(time.RFC3339))
		case approvals.BindingOtherWorkspace:
			fmt.Fprintf(g.Stdout, "%s -> %s  %s: approved in %s; approve it here with `jp-policy approvals approve %s`\n", b.RulePath, b.Approved, paint.Bad("OTHER WORKSPACE"), jpdirs.SharingWorkspacesText(b.ApprovedIn), b.RulePath)
		case approvals.BindingRetargeted:
			fmt.Fprintf(g.Stdout, "%s -> %s  %s: now %s; re-approve with `jp-policy approvals approve %s`\n", b.RulePath, b.Approved, paint.Bad("RETARGETED"), b.Current, b.RulePath)
		default:
			fmt.Fprintf(g.Stdout, "%s -> %s  %s: %s\n", b.RulePath, b.Approved, paint.Bad("BROKEN"), b.Problem)
		}
	}
}

// Run records the approval of the rule's current target.
func (c *ApprovalsApproveCmd) Run(g *Globals, ac *ApprovalsCmd) error {
	env, _, store, err := ac.writableStore(g)
	if err != nil {
		return err
	}
	rp, target, before, err := approvals.ApproveRule(env.Root, c.RulePath, store, time.Now())
	if err != nil {
		return fail(exitUsage, err)
	}
	if before.Kind == approvals.Approved {
		if !c.Quiet {
			fmt.Fprintf(g.Stdout, "%s -> %s already approved\n", rp, target)
		}
		return nil
	}
	// The user asked for this approval by name, which is the explicit
	// consent a corrupt store may be replaced for.
	if err := store.Save(true); err != nil {
		return fail(exitUsage, err)
	}
	switch {
	case c.Quiet:
	case before.Kind == approvals.Retargeted:
		fmt.Fprintf(g.Stdout, "approved %s -> %s (was %s)\n", rp, target, before.Previous)
	case before.Kind == approvals.OtherWorkspace:
		fmt.Fprintf(g.Stdout, "approved %s -> %s (already approved in %s)\n", rp, target, strings.Join(before.ApprovedIn, ", "))
	default:
		fmt.Fprintf(g.Stdout, "approved %s -> %s\n", rp, target)
	}
	return nil
}

// Run removes the rule's approval.
func (c *ApprovalsRevokeCmd) Run(g *Globals, ac *ApprovalsCmd) error {
	env, path, store, err := ac.writableStore(g)
	if err != nil {
		return err
	}
	rp := c.RulePath
	if lex, err := policy.LexicalRel(rp); err == nil {
		rp = lex
	}
	ok, elsewhere := store.Revoke(rp, env.Root)
	switch {
	case !ok && len(elsewhere) > 0:
		return fail(exitUsage, fmt.Errorf("%s is not approved in this workspace, only in %s; revoke it from there", c.RulePath, jpdirs.SharingWorkspacesText(elsewhere)))
	case !ok:
		return fail(exitUsage, fmt.Errorf("no approval for %s in %s", c.RulePath, path))
	}
	if err := store.Save(false); err != nil {
		return fail(exitUsage, err)
	}
	if !c.Quiet {
		fmt.Fprintf(g.Stdout, "revoked %s\n", rp)
	}
	return nil
}
