package lint

import (
	"sort"
	"strings"

	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/diag"
)

// Approvals is what lint needs of the approvals store (RFD D43): the
// approved canonical target of an external rule's workspace-relative path.
type Approvals interface {
	Lookup(rulePath string) (target string, ok bool)
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
	st := newState(l, opts)
	var all []diag.Diagnostic
	all = append(all, l.Diagnostics...)
	for _, r := range Rules() {
		rr := registry[r.ID]
		if rr.check == nil {
			continue
		}
		p := &pass{l: l, opts: opts, rule: rr, st: st}
		rr.check(p)
		all = append(all, p.out...)
	}
	all = preferSpecific(all)
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
func eachCommand(l *config.Loaded, fn func(t *config.Tool, prog string, c *config.CommandRule)) {
	for _, t := range sortedTools(l) {
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
	if kp, ok := keys[key]; ok && !kp.IsZero() {
		return kp
	}
	return fallback
}

// preferSpecific drops a loader schema finding (JP002) when a lint rule
// reports an error at the very same position: both describe one problem,
// and the lint rule's message is the more specific one and carries a fix.
// Neither is suppressible, so nothing unsafe can hide behind this.
func preferSpecific(ds []diag.Diagnostic) []diag.Diagnostic {
	specific := map[diag.Position]bool{}
	for _, d := range ds {
		if r, ok := registry[d.Rule]; ok && !r.Loader && d.Severity == diag.Error {
			specific[d.Pos] = true
		}
	}
	out := ds[:0]
	for _, d := range ds {
		if d.Rule == "JP002" && specific[d.Pos] {
			continue
		}
		out = append(out, d)
	}
	return out
}
