package lint

import (
	"slices"
	"sort"
	"strings"

	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// Approvals is what lint needs of the approvals store (RFD D43): the
// approved canonical target of an external rule's workspace-relative
// path, as seen from the workspace at root (approvals.Store.LookupIn):
// elsewhere is set when it was approved only in other workspaces that
// share root's id, so that it does not hold here, as compile decides.
type Approvals interface {
	LookupIn(rulePath, root string) (target string, elsewhere []string, ok bool)
}

// Options tune one lint run.
type Options struct {
	// Approvals is consulted for external rules; nil means "no approvals",
	// so every reachable external target is reported as unapproved.
	Approvals Approvals
	// Ignore lists rule IDs to drop (--ignore). IDs of rules that are not
	// suppressible are kept regardless; see ValidateIgnore.
	Ignore []string
	// Home is the user's home directory, for `~/` in sensitive paths and
	// for naming files in messages. Empty disables home-relative checks.
	Home string
	// Getenv reads the environment (for locating JP's user config and data
	// directories); nil means no variables are set.
	Getenv func(string) string
	// ApprovalsFile is the approvals store in use, when it is not in the
	// default place; lint warns about mounts that can write it.
	ApprovalsFile string
	// Disk is the view of the file system rule paths are bound through;
	// nil gives the run a cache of its own. Compile passes the one it
	// binds with afterwards, so each path is looked up once per compile.
	Disk *policy.StatCache
}

// pass is what one rule's check sees.
type pass struct {
	l    *config.Loaded
	opts Options
	rule *Rule
	st   *state
	out  []diag.Diagnostic
}

// report records a finding of the running rule.
func (p *pass) report(pos diag.Position, msg, help string, related ...diag.Related) {
	p.out = append(p.out, diag.Diagnostic{
		Pos: pos, Severity: p.rule.Severity, Rule: p.rule.ID,
		Message: msg, Help: help, Related: related,
	})
}

// reportFix records a finding with a mechanical fix (nil for none).
func (p *pass) reportFix(pos diag.Position, msg, help string, fix *diag.Fix) {
	p.report(pos, msg, help)
	p.out[len(p.out)-1].Fix = fix
}

// Run checks a loaded config and returns every finding, the loader's
// diagnostics included, sorted by file, line, column and rule. Suppressed
// findings are left out; malformed suppressions are reported.
func Run(l *config.Loaded, opts Options) []diag.Diagnostic {
	if l == nil {
		return nil
	}
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	if opts.Disk == nil {
		// One lint run is one pass over a tree it does not change: each
		// distinct path is looked up once, however many tools' rules name
		// it (every tool's checker canonicalised the root again, and most
		// rules share their paths).
		opts.Disk = policy.NewStatCache()
	}
	st := newState(l, opts)
	var all []diag.Diagnostic
	all = append(all, l.Diagnostics...)
	for _, rr := range catalogue {
		if rr.check == nil {
			continue
		}
		p := &pass{l: l, opts: opts, rule: rr, st: st}
		rr.check(p)
		all = append(all, p.out...)
	}
	all = WithHelp(oneFinding(all))
	sup := parseSuppressions(l.Files)
	all = sup.apply(all, opts.Ignore)
	diag.Sort(all)
	return dedupe(all)
}

// dedupe drops exact repeats, which arise when one file is merged into
// the config more than once (for example through two `extends` globs).
func dedupe(ds []diag.Diagnostic) []diag.Diagnostic {
	out := ds[:0]
	for i, d := range ds {
		if i > 0 && sameFinding(ds[i-1], d) {
			continue
		}
		out = append(out, d)
	}
	return out
}

func sameFinding(a, b diag.Diagnostic) bool {
	return a.Pos == b.Pos && a.Rule == b.Rule && a.Message == b.Message && a.Severity == b.Severity
}

// sortedTools returns the merged tools in name order, so findings and
// their order do not depend on map iteration.
func sortedTools(l *config.Loaded) []*config.Tool {
	names := make([]string, 0, len(l.Tools))
	for n := range l.Tools {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]*config.Tool, 0, len(names))
	for _, n := range names {
		if t := l.Tools[n]; t != nil {
			out = append(out, t)
		}
	}
	return out
}

// eachCommand calls fn for every declared command rule, tools and
// programs in name order, so findings come out in a stable order.
func eachCommand(sorted []*config.Tool, fn func(t *config.Tool, prog string, c *config.CommandRule)) {
	for _, t := range sorted {
		if t.Access == nil {
			continue
		}
		progs := make([]string, 0, len(t.Access.Commands))
		for k := range t.Access.Commands {
			progs = append(progs, k)
		}
		sort.Strings(progs)
		for _, prog := range progs {
			if c := t.Access.Commands[prog]; c != nil {
				fn(t, prog, c)
			}
		}
	}
}

// sourceKind classifies a tool's merged `source`: "builtin", "mcp" or
// "local" (anything else, including unset).
func sourceKind(s string) string {
	s = strings.TrimSpace(s)
	for _, k := range []string{"builtin", "mcp"} {
		if s == k || strings.HasPrefix(s, k+".") || strings.HasPrefix(s, k+":") {
			return k
		}
	}
	return "local"
}

// valueOf returns the span of key's value inside a rule, as the parser
// recorded it (`path = "/etc"` underlines `"/etc"`), or fallback when the
// key was not written.
func (p *pass) valueOf(keys config.Keys, key string, fallback diag.Position) diag.Position {
	if kp, ok := keys.Get(key); ok && !kp.IsZero() {
		return kp
	}
	return fallback
}

// oneFinding keeps one finding per mistake. A value with the wrong type
// or shape is reported by the loader (JP002, JP003); the decoders then
// leave it out, which can make a lint rule see an empty list (JP115) or an
// empty args (JP121) where the user wrote something else. So a lint
// finding whose span holds a loader error is dropped, except a lint error
// at the very same place: both describe one problem, and the lint rule's
// message is the more specific one and carries a fix, so the loader's
// JP002 goes instead. Every finding involved is an error the compiler
// refuses too, so nothing unsafe can hide behind this.
func oneFinding(ds []diag.Diagnostic) []diag.Diagnostic {
	var loader []diag.Position
	specific := map[diag.Position]bool{}
	for _, d := range ds {
		r, ok := ruleOK(d.Rule)
		switch {
		case ok && r.Loader && d.Severity == diag.Error:
			loader = append(loader, d.Pos)
		case ok && !r.Loader && d.Severity == diag.Error:
			specific[d.Pos.Start()] = true
		}
	}
	out := ds[:0]
	for _, d := range ds {
		r, ok := ruleOK(d.Rule)
		switch {
		case d.Rule == "JP002" && specific[d.Pos.Start()]:
			continue
		case ok && !r.Loader && !(d.Severity == diag.Error && slices.ContainsFunc(loader, func(p diag.Position) bool { return p.Start() == d.Pos.Start() })) &&
			slices.ContainsFunc(loader, func(p diag.Position) bool { return contains(d.Pos, p) }):
			continue
		}
		out = append(out, d)
	}
	return out
}

// contains reports whether p starts inside the span of outer (same file,
// from outer's start up to its end).
func contains(outer, p diag.Position) bool {
	if outer.File != p.File || !outer.HasEnd() || p.Line == 0 {
		return false
	}
	after := p.Line > outer.Line || (p.Line == outer.Line && p.Col >= outer.Col)
	before := p.Line < outer.EndLine || (p.Line == outer.EndLine && p.Col < outer.EndCol)
	return after && before
}

// WithHelp gives every finding a fix: one without its own help (the
// loader's syntax and schema errors) gets its rule's catalogue Fix, so
// each finding any command prints ends with a `help:` line.
func WithHelp(ds []diag.Diagnostic) []diag.Diagnostic {
	for i := range ds {
		if ds[i].Help != "" {
			continue
		}
		if r, ok := ruleOK(normalizeID(ds[i].Rule)); ok {
			// In the lower-case, unpunctuated style of the rules' own help.
			h := strings.TrimSuffix(r.Fix, ".")
			ds[i].Help = strings.ToLower(h[:1]) + h[1:]
		}
	}
	return ds
}
