package landlock

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	ll "github.com/jp-policy/jp-policy/internal/plan/landlock"

	"github.com/jp-policy/jp-policy/internal/emit"
	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// Minimal is RFD 075's minimal environment (policy.MinimalEnv); a
// trailing '*' would mark a prefix.
var Minimal = policy.MinimalEnv

// ABI levels at which Landlock learnt each feature.
const (
	ABIRefer    = 2
	ABITruncate = 3
	ABINet      = 4
	ABIIoctlDev = 5
	ABIScope    = 6
)

// Scopes the manifest always asks for.
var Scopes = []string{"abstract_unix_socket", "signal"}

// Build translates one compiled tool into its Linux manifest. It reads the
// directories on the way to narrowed paths (through t.FS) to split broader
// grants; everything else is pure.
func Build(t emit.Tool) (*ll.Manifest, error) {
	all, err := t.AbsRules()
	if err != nil {
		return nil, err
	}
	live := emit.Live(all)
	fsys := emit.FSOf(t)
	guards := protectedGuards(live, t.Protected)
	guarded := withGuards(live, guards)
	grants, notes := split(fsys, guarded)

	m := &ll.Manifest{
		Version:  ll.FormatVersion,
		Tool:     t.Name,
		Root:     t.Root,
		FS:       grants,
		Baseline: baselineRules(),
		Scope:    append([]string(nil), Scopes...),
		Env:      plan.Env{Minimal: append([]string(nil), Minimal...), Rules: envRules(t.Access.Env)},
		Commands: t.Access.Commands,
		Masks:    []string{},
	}
	if m.FS == nil {
		m.FS = []ll.PathRule{}
	}
	m.Masks, m.MaskedFS = masks(fsys, guarded)
	m.Bound, m.BoundFS = bound(fsys, guarded, m.Masks)
	m.Namespace = nsPlan(live, t.Protected, t.PolicyFiles)

	np := emit.PlanNet(t.Access.Net)
	m.Net = ll.Net{Restrict: true, ConnectTCP: np.Ports, BindTCP: []uint16{}}
	if m.Net.ConnectTCP == nil {
		m.Net.ConnectTCP = []uint16{}
	}
	m.Seccomp = SeccompSpec(m.Net)

	byIndex := slices.Clone(all)
	sort.SliceStable(byIndex, func(a, b int) bool { return byIndex[a].Index < byIndex[b].Index })
	cl := make([]plan.Clause, 0, len(all)+48)
	for _, r := range byIndex {
		cl = append(cl, fsClause(r, notes[r.Index], all, guards))
	}
	if len(guards) > 0 {
		var ps []string
		for _, g := range guards {
			ps = append(ps, g.Abs)
		}
		cl = append(cl, plan.Clause{
			ID: "fs.protected", What: "protected paths outside the workspace, read-only although a write grant covers them: " + strings.Join(ps, ", "),
			Status: plan.Enforced, MinABI: ABITruncate,
			How: "the Landlock split: each keeps only read (and execute), and the directory holding it keeps only that directly in it, so it cannot be created, replaced, renamed or deleted (on the namespaced path an existing one is a read-only bind too, ns.protected); below ABI 3 truncate(2) is not restricted",
		})
	}
	cl = append(cl, defaultClause)
	cl = append(cl, baselineClauses()...)
	cl = append(cl, overlapClauses(live)...)
	cl = append(cl, netClauses(np)...)
	cl = append(cl, SeccompClauses(*m.Seccomp)...)
	cl = append(cl, scopeClauses...)
	cl = append(cl,
		envClause(t.Access.Env),
		commandsClause(t.Access.Commands),
	)
	cl = append(cl, ll.NeedClauses(ll.NamespaceNeeds(m))...)
	m.Clauses = cl
	for _, c := range cl {
		if c.Status != plan.Cooperative && c.MinABI > m.MinABI {
			m.MinABI = c.MinABI
		}
	}
	return m, nil
}

// defaultClause and scopeClauses read the same for every tool (Base).
var (
	defaultClause = plan.Clause{
		ID: "fs.default", What: "paths that no rule and no baseline entry names are denied",
		Status: plan.Enforced, MinABI: ABITruncate,
		How: "below ABI 3 truncate(2) is not restricted",
	}
	scopeClauses = []plan.Clause{
		{ID: "scope.signal", What: "no signals to processes outside the sandbox", Status: plan.Enforced, MinABI: ABIScope},
		{ID: "scope.abstract_unix_socket", What: "no connections to abstract unix sockets outside the sandbox", Status: plan.Enforced, MinABI: ABIScope},
	}
)

// ProgramRule is the grant a launcher adds for the program it starts when
// no fs rule or baseline entry already lets it run: execute, plus read so
// that scripts can be read by their interpreter.
func ProgramRule(path string) ll.PathRule {
	return ll.PathRule{Path: path, Access: (ll.RExecute | ll.RReadFile).Names(), Clause: "program"}
}

func envRules(rs []policy.EnvRule) []policy.EnvRule {
	if rs == nil {
		return []policy.EnvRule{}
	}
	return rs
}

// masks lists the narrowed paths that grant nothing and exist now: a
// launcher with a private mount namespace can cover each one read-only and
// empty, and then use MaskedFS, the split computed as if those rules were
// not there, which keeps the ancestors' full rights.
func masks(fsys emit.FS, live []emit.AbsRule) ([]string, []ll.PathRule) {
	// A guard (protectedGuards) is never a mask: the namespace plan knows
	// nothing of it, and MaskedFS must keep it.
	out, g := splitWithout(fsys, live, func(r emit.AbsRule) bool {
		return r.Index >= 0 && RightsOf(emit.CapsOf(r.Rule)) == 0 && hasAncestorRule(live, r.Abs) && lstatKind(fsys, r.Abs) != kMissing
	})
	if out == nil {
		out = []string{}
	}
	return out, g
}

// splitWithout is the split of live without the rules pick takes, and
// the paths of those rules; nil, nil when pick takes none.
func splitWithout(fsys emit.FS, live []emit.AbsRule, pick func(emit.AbsRule) bool) ([]string, []ll.PathRule) {
	var out []string
	var rest []emit.AbsRule
	for _, r := range live {
		if pick(r) {
			out = append(out, r.Abs)
			continue
		}
		rest = append(rest, r)
	}
	if len(out) == 0 {
		return nil, nil
	}
	g, _ := split(fsys, rest)
	if g == nil {
		g = []ll.PathRule{}
	}
	return out, g
}

// roWithheld are the rights a read-only mount refuses by itself (EROFS):
// what a read-only rule inside a writable one may withhold and still be
// enforced by a bind alone.
const roWithheld = ll.RWriteFile | ll.RTruncate | ll.RRemoveDir | ll.RRemoveFile | ll.RMakeChar | ll.RMakeDir |
	ll.RMakeReg | ll.RMakeSock | ll.RMakeFifo | ll.RMakeBlock | ll.RMakeSym | ll.RRefer

// bound lists the read-only rules (existing now) that the namespaced
// path's read-only binds enforce exactly, and the split computed without
// them and without the masks (Manifest.BoundFS). A rule qualifies when
// it grants no write capability, the nearest rule above it is writable
// (so the namespace plan binds it read-only: NSPlan), and it withholds
// from that rule only what a read-only mount refuses: a rule that also
// withholds read or execute needs Landlock's split to do so.
func bound(fsys emit.FS, live []emit.AbsRule, masked []string) ([]string, []ll.PathRule) {
	var kept []emit.AbsRule
	for _, r := range live {
		if !slices.Contains(masked, r.Abs) {
			kept = append(kept, r)
		}
	}
	return splitWithout(fsys, kept, func(r emit.AbsRule) bool {
		k := lstatKind(fsys, r.Abs)
		return r.Index >= 0 && (k == kDir || k == kFile) && qualifiesForBind(live, r)
	})
}

// qualifiesForBind reports whether r is a read-only rule inside a
// writable one that withholds only what a read-only mount refuses.
func qualifiesForBind(live []emit.AbsRule, r emit.AbsRule) bool {
	caps := emit.CapsOf(r.Rule)
	if caps.Has(policy.Create) || caps.Has(policy.Update) || caps.Has(policy.Delete) {
		return false
	}
	mine := RightsOf(caps)
	if mine == 0 {
		return false // a mask
	}
	var anc *emit.AbsRule
	for i := range live {
		if a := &live[i]; a.Abs != r.Abs && policy.Within(r.Abs, a.Abs) && (anc == nil || len(a.Abs) > len(anc.Abs)) {
			anc = a
		}
	}
	if anc == nil {
		return false
	}
	ac := emit.CapsOf(anc.Rule)
	if !ac.Has(policy.Create) && !ac.Has(policy.Update) && !ac.Has(policy.Delete) {
		return false
	}
	theirs := RightsOf(ac)
	return mine&^theirs == 0 && theirs&^mine&^roWithheld == 0
}

func fsClause(r emit.AbsRule, n *ruleNote, all []emit.AbsRule, guards []emit.AbsRule) plan.Clause {
	caps := emit.CapsOf(r.Rule)
	rights := RightsOf(caps)
	what := fmt.Sprintf("%s: %s", displayPath(r), caps)
	c := plan.Clause{ID: fmt.Sprintf("fs[%d]", r.Index), What: what, Status: plan.Enforced, MinABI: 1}
	if rights&ll.RRefer != 0 {
		c.MinABI = ABIRefer
	}
	if !caps.Has(policy.Update) {
		// Withholding truncate needs ABI 3; below it truncate is free.
		c.MinABI = ABITruncate
	}
	if r.ShadowedBy >= 0 {
		c.How = fmt.Sprintf("shadowed by fs[%d] on the same path (the later rule wins)", r.ShadowedBy)
		return c
	}
	if n == nil {
		return c
	}
	var how []string
	if n.missing {
		how = append(how, fmt.Sprintf("%s did not exist at compile time: nothing is granted on it, so creating it is denied until it exists and the policy is recompiled", r.Abs))
	}
	if n.symlink {
		how = append(how, fmt.Sprintf("%s is a symlink, not a canonical path: nothing is granted on it", r.Abs))
	}
	if n.fileLost != 0 {
		how = append(how, fmt.Sprintf("%s is a file: %s would have to be granted on its parent directory, where it would reach its siblings; withheld (the file cannot be deleted, renamed or re-created)", r.Abs, strings.Join(n.fileLost.Names(), ", ")))
	}
	if len(n.splitDirs) > 0 {
		var around []string
		for _, i := range n.around {
			for _, o := range all {
				if o.Index == i {
					around = append(around, fmt.Sprintf("fs[%d] %s", i, displayPath(o)))
				}
			}
			for _, g := range guards {
				if g.Index == i {
					around = append(around, "fs.protected "+g.Abs)
				}
			}
		}
		how = append(how, fmt.Sprintf("split around narrower rules (%s): on %s itself only the rights every narrower rule shares are granted, so %s are withheld there; entries created later directly in those directories get only what the narrower rules allow, and entries directly in them cannot be created, deleted or renamed beyond that; existing entries beside the narrowed paths keep the full rights",
			strings.Join(around, ", "), strings.Join(n.splitDirs, ", "), strings.Join(n.lost.Names(), ", ")))
	}
	if len(n.unlisted) > 0 {
		how = append(how, fmt.Sprintf("could not list %s at compile time: the withheld rights are granted nowhere beneath (fail closed)", strings.Join(n.unlisted, ", ")))
	}
	if n.symlinks > 0 {
		how = append(how, fmt.Sprintf("%d symlink(s) in split directories get no grant of their own; access through them is decided at their targets", n.symlinks))
	}
	if len(how) > 0 {
		c.Status = plan.Degraded
		c.How = strings.Join(how, "; ")
	}
	return c
}

func displayPath(r emit.AbsRule) string {
	p := r.Rule.LexicalPath
	if p == "" {
		p = "."
	}
	if r.Link != "" {
		return fmt.Sprintf("%s -> %s", p, r.Abs)
	}
	return p
}

// overlapClauses flags policy rules that narrow a path the baseline grants
// anyway: the baseline wins there, and the user must know.
func overlapClauses(live []emit.AbsRule) []plan.Clause {
	var out []plan.Clause
	for _, r := range live {
		want := RightsOf(emit.CapsOf(r.Rule))
		for _, g := range baseline {
			for _, b := range g.paths {
				if policy.Within(r.Abs, b.path) && b.rights&^want != 0 {
					out = append(out, plan.Clause{
						ID: fmt.Sprintf("fs[%d].baseline", r.Index), What: fmt.Sprintf("%s lies under the baseline entry %s", displayPath(r), b.path),
						Status: plan.Degraded, MinABI: 1,
						How: fmt.Sprintf("%s (%s) also grants %s there", g.id, b.path, strings.Join((b.rights&^want).Names(), ", ")),
					})
				}
			}
		}
	}
	return out
}

func netClauses(np emit.NetPlan) []plan.Clause {
	c := plan.Clause{ID: "net", Status: plan.Enforced, MinABI: ABINet}
	if len(np.Ports) == 0 {
		c.What = "all outbound TCP denied"
	} else {
		var ps []string
		for _, p := range np.Ports {
			ps = append(ps, fmt.Sprint(p))
		}
		c.What = "outbound TCP only to ports " + strings.Join(ps, ", ")
	}
	out := []plan.Clause{c,
		{ID: "net.bind", What: "binding TCP ports denied (the policy has no listen grant)", Status: plan.Enforced, MinABI: ABINet},
	}
	return append(out, emit.NetClauses(np, "Landlock", ABINet)...)
}

func envClause(rs []policy.EnvRule) plan.Clause {
	what := "environment: the minimal set (PATH, HOME, USER, LANG and the locale categories LC_ALL, LC_CTYPE, ...)"
	if len(rs) > 0 {
		what += fmt.Sprintf(" plus %d env rule(s)", len(rs))
	}
	return plan.Clause{ID: "env", What: what, Status: plan.Enforced, MinABI: 0,
		How: "the launcher builds the child's environment from the allowlist; per-command envs for programs the tool starts itself are cooperative"}
}

func commandsClause(cmds map[string]policy.CommandRule) plan.Clause {
	return emit.CommandsClause(cmds, "the launcher checks the program it starts; Landlock's execute right is per path and the baseline lets the tool execute anything under the system directories, so programs the tool starts itself are checked only cooperatively")
}

// guardBase numbers the guards (protectedGuards) below every rule index;
// a grant they own is clause "fs.protected".
const guardBase = -1 << 20

// protectedGuards are narrower rules, granting no write, on each
// protected path (emit.Tool.Protected) that a live rule's write grant
// covers and no rule names. The namespaced path keeps an existing one
// read-only with a bind (nsPlan), but a bind needs the path to exist, and
// a placeholder would put an empty file into the user's home (or a file
// where ~/.ssh belongs). The Landlock split does the rest, on both paths:
// the directory that holds the path keeps only the guard's rights
// directly in it, so the path cannot be created, deleted, renamed or
// replaced there (the directory's other existing entries keep the full
// rights), an existing one gets read (and execute) only, and one the user
// creates later is read-only to the tool too.
func protectedGuards(live []emit.AbsRule, protected []string) []emit.AbsRule {
	var out []emit.AbsRule
	for _, p := range protected {
		var anc *emit.AbsRule
		named := false
		for i := range live {
			switch r := &live[i]; {
			case r.Abs == p:
				named = true
			case policy.Within(p, r.Abs) && (anc == nil || len(r.Abs) > len(anc.Abs)):
				anc = r
			}
		}
		if named || anc == nil {
			continue
		}
		caps := emit.CapsOf(anc.Rule)
		if !caps.Has(policy.Create) && !caps.Has(policy.Update) && !caps.Has(policy.Delete) {
			continue
		}
		rd, x, no := caps.Has(policy.Read), caps.Has(policy.Execute), false
		out = append(out, emit.AbsRule{
			Index: guardBase + len(out), Abs: p, ShadowedBy: -1,
			Rule: policy.FsRule{LexicalPath: p, Read: &rd, Execute: &x, Write: &no, Create: &no, Update: &no, Delete: &no},
		})
	}
	return out
}

// withGuards is live with the guards among them, sorted by path as split
// expects.
func withGuards(live, guards []emit.AbsRule) []emit.AbsRule {
	if len(guards) == 0 {
		return live
	}
	out := append(append([]emit.AbsRule(nil), live...), guards...)
	sort.SliceStable(out, func(a, b int) bool { return out[a].Abs < out[b].Abs })
	return out
}
