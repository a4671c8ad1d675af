package compiler

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/jp-policy/jp-policy/internal/approvals"
	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/jpdirs"
	"github.com/jp-policy/jp-policy/internal/lint"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// MountPrompt is what the user is shown before an external target is
// trusted (RFD D43 "Approval lifecycle").
type MountPrompt struct {
	RulePath string // workspace-relative lexical path of the symlink
	Target   string // canonical absolute target now
	Previous string // the approved target before a retarget; "" when new
	// ApprovedIn: the other workspaces sharing this one's id that
	// approved this exact binding, when only they did.
	ApprovedIn []string
	Grants     []ToolGrant
}

// ToolGrant lists what one tool may do under a mount.
type ToolGrant struct {
	Tool string
	Caps []string
}

// Prompter asks the user. Implementations must default to "no".
type Prompter interface {
	ApproveMount(MountPrompt) (bool, error)
}

func runLint(l *config.Loaded, store *approvals.Store, opts *Options, disk *policy.StatCache) []diag.Diagnostic {
	home, _ := os.UserHomeDir()
	all := lint.Run(l, lint.Options{Approvals: store, Getenv: opts.getenv, Home: home, ApprovalsFile: store.Path(), Disk: disk})
	// Broken links and unapproved targets are the compiler's own business:
	// it prompts, or drops the rule with a warning under the same ID and
	// at the same place, naming the command to approve it; lint's
	// JP105/JP106/JP124, computed before any prompt, would say it twice.
	out := all[:0]
	for _, d := range all {
		if d.Rule != "JP105" && d.Rule != "JP106" && d.Rule != "JP124" {
			out = append(out, d)
		}
	}
	return out
}

// externalUse is one external rule path as used by any tool.
type externalUse struct {
	target string
	grants []ToolGrant
	pos    diag.Position
}

// approveExternal runs the D43 lifecycle once per external rule path,
// whatever number of tools use it (approvals.Review), and returns the approved target of
// each rule path that may be compiled.
func approveExternal(opts *Options, root string, names []string,
	bound map[string][]boundRule, store *approvals.Store) (map[string]string, []diag.Diagnostic, error) {

	uses := map[string]*externalUse{}
	for _, name := range names {
		for _, br := range bound[name] {
			if br.Drop || !br.Bound.External {
				continue
			}
			u := uses[br.Bound.Lexical]
			if u == nil {
				u = &externalUse{target: br.Bound.Abs, pos: keyPos(br.Src.Pos, br.Src.Keys, "path")}
				uses[br.Bound.Lexical] = u
			}
			u.grants = append(u.grants, ToolGrant{Tool: name, Caps: capsOf(br.Src)})
		}
	}
	approved := map[string]string{}
	paths := make([]string, 0, len(uses))
	for p, u := range uses {
		if grantsNothing(u) {
			// A rule that grants nothing needs no approval: approval
			// guards what a link lets a tool reach, and this one only
			// takes access away, wherever it points. Dropping it, as D43
			// drops unapproved rules so calls "fall through to
			// default-deny", would instead let a broader approved rule
			// (a mount of ~/.cargo) reach what it narrows
			// (cargo/credentials.toml): exec_external_deny.txtar.
			approved[p] = u.target
			continue
		}
		paths = append(paths, p)
	}
	sort.Strings(paths)

	cands := make([]approvals.Candidate, len(paths))
	for i, rp := range paths {
		cands[i] = approvals.Candidate{RulePath: rp, Target: uses[rp].target}
	}
	var ask approvals.Ask
	if opts.Prompter != nil {
		ask = func(d approvals.Decision) (bool, error) {
			return opts.Prompter.ApproveMount(MountPrompt{RulePath: d.RulePath, Target: d.Target, Previous: d.Previous, ApprovedIn: d.ApprovedIn, Grants: uses[d.RulePath].grants})
		}
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	decisions, err := approvals.Review(store, root, cands, ask, now())
	if err != nil {
		return nil, nil, err
	}
	var warns []diag.Diagnostic
	for _, d := range decisions {
		u := uses[d.RulePath]
		switch d.Verdict {
		case approvals.Trusted:
			approved[d.RulePath] = d.Target
		case approvals.NoStorage:
			// No .jp/.id JP accepts: an approval could not be recorded,
			// so asking would waste the answer. Say why and how to fix it.
			_, err := approvals.DefaultPath(root, opts.getenv)
			noID, ok := errors.AsType[*approvals.NoIDError](err)
			if !ok {
				noID = &approvals.NoIDError{Root: root}
			}
			w := dropWarning(d.RulePath, u, fmt.Sprintf("external rule %q of %s points at %s, which cannot be approved: the workspace %s to record it; the rule is dropped until it is", d.RulePath, toolList(u), u.target, noID.Missing()))
			w.Help = noID.Fix() + ", then compile again"
			warns = append(warns, w)
		case approvals.Declined:
			warns = append(warns, dropWarning(d.RulePath, u, fmt.Sprintf("external rule %q of %s points at %s, which you declined; the rule is dropped until it is approved", d.RulePath, toolList(u), u.target)))
		default:
			// The wording lint uses for the same finding (JP106).
			msg := lint.UnapprovedMessage(d.RulePath, u.tools(), u.target)
			switch {
			case d.Previous != "":
				msg = lint.RetargetedMessage(d.RulePath, u.tools(), d.Previous, u.target)
			case len(d.ApprovedIn) > 0:
				msg = lint.ApprovedElsewhereMessage(d.RulePath, u.tools(), u.target, jpdirs.SharingWorkspacesText(d.ApprovedIn))
			}
			warns = append(warns, dropWarning(d.RulePath, u, msg))
		}
	}
	return approved, warns, nil
}

func dropWarning(rp string, u *externalUse, msg string) diag.Diagnostic {
	return diag.Diagnostic{
		Pos:      u.pos,
		Severity: diag.Warning,
		Rule:     "JP106", // lint's external-unapproved, at the same place
		Message:  msg,
		Help:     lint.UnapprovedHelp(rp) + " (or compile on a terminal to be asked), then compile again",
	}
}

// tools names the tools whose rules use the path.
func (u *externalUse) tools() []string {
	tools := make([]string, len(u.grants))
	for i, g := range u.grants {
		tools[i] = g.Tool
	}
	return tools
}

func toolList(u *externalUse) string {
	ts := u.tools()
	if len(ts) == 1 {
		return fmt.Sprintf("tool %q", ts[0])
	}
	return fmt.Sprintf("tools %q", ts)
}

// capsOf names the capabilities a written rule grants, through the
// policy package's own accessors so `write` expands exactly as it will be
// enforced.
// grantsNothing reports whether no tool's rule at this external path
// grants any capability (a narrowing rule, such as `read = false` on a
// file inside a mount).
func grantsNothing(u *externalUse) bool {
	for _, g := range u.grants {
		if len(g.Caps) > 0 {
			return false
		}
	}
	return true
}

func capsOf(r config.FsRule) []string {
	return wireFs(r, "").GrantedNames()
}
