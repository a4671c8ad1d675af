package compiler

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/platform"

	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/lint"
	"github.com/jp-policy/jp-policy/internal/policy"
	"github.com/jp-policy/jp-policy/internal/termstyle"
)

// Explain writes the human view of one compiled tool (or of every tool
// when name is ""): each rule with its origin and what it grants, whether
// the tool was defaulted, and per platform what is enforced, degraded or
// cooperative-only. It is the page a user reads to understand a denial.
func Explain(w io.Writer, res *Result, name string) error {
	return ExplainPlatforms(w, res, name, Platforms)
}

// Platforms are the platforms a policy is compiled for, in the order
// explain shows them.
var Platforms = platform.All

// ExplainPlatforms is Explain with the enforcement section limited to
// platforms (explain --platform): what the compiled manifests enforce
// there, whichever OS explain runs on.
func ExplainPlatforms(w io.Writer, res *Result, name string, platforms []platform.Platform) error {
	return ExplainWith(w, res, name, ExplainOptions{Platforms: platforms, Verbose: true})
}

// ExplainOptions choose how much explain shows.
type ExplainOptions struct {
	// Platforms are the platforms whose enforcement is shown.
	Platforms []platform.Platform
	// Verbose lists what the user did not write too: the rules
	// jp-policy materialised (the minimal environment's variables) and
	// every baseline clause that is fully enforced. Without it they are
	// summarised in a line each, so a typical tool fits on a screen and
	// leads with the user's own rules.
	Verbose bool
}

// ExplainWith is Explain with options.
func ExplainWith(w io.Writer, res *Result, name string, o ExplainOptions) error {
	names, err := explainNames(res, name)
	if err != nil {
		return err
	}
	for i, n := range names {
		if i > 0 {
			fmt.Fprintln(w)
		}
		explainTool(w, res, n, res.Artifact.Tools[n], o)
	}
	return nil
}

// explainNames is the tool name asked for, checked, or every compiled
// tool's name, sorted, when name is "".
func explainNames(res *Result, name string) ([]string, error) {
	if name != "" {
		if err := res.checkTool(name); err != nil {
			return nil, err
		}
		return []string{name}, nil
	}
	names := make([]string, 0, len(res.Artifact.Tools))
	for n := range res.Artifact.Tools {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}

func explainTool(w io.Writer, res *Result, name string, t *artifact.Tool, o ExplainOptions) {
	platforms := o.Platforms
	state := "enabled"
	if !t.Enabled {
		state = "disabled"
	}
	fmt.Fprintf(w, "tool %s (source %s, %s)\n", termstyle.Safe(name), termstyle.Safe(t.Source), state)
	if t.Defaulted {
		fmt.Fprintln(w, "  no `access` config: RFD 075's default policy applies (workspace read-write, no network, minimal environment, any command)")
	}
	origin := func(kind string, idx int, key string) string {
		for _, o := range t.Origins {
			if o.Kind == kind && o.Index == idx && o.Key == key {
				return shortPos(res.Root, o.Pos)
			}
		}
		if t.Defaulted {
			return "default policy"
		}
		return "materialised by jp-policy"
	}

	fmt.Fprintln(w, "\n  filesystem (longest matching path wins; ties go to the later rule; no match is denied):")
	if len(t.Access.FS) == 0 {
		fmt.Fprintf(w, "    (no rules) the compiled policy %s\n", lint.EnforcedWhenEmpty("fs"))
	}
	for i, r := range t.Access.FS {
		path := r.LexicalPath
		if path == "" {
			path = "."
		}
		path = termstyle.Safe(path)
		if r.External && r.ApprovedTarget != nil {
			path += " -> " + termstyle.Safe(*r.ApprovedTarget) + " (external, approved)"
		}
		fmt.Fprintf(w, "    [%d] %-28s %-34s %s\n", i, path, capList(r), origin("fs", i, ""))
	}

	fmt.Fprintln(w, "\n  network (host exact; port defaults to the scheme's; longest match wins; no match is denied):")
	net := t.Access.Net
	if len(net) == 0 || (len(net) == 1 && net[0].Host == policy.DenyNetHost && !net[0].Allow) {
		// No net rules written: say what is enforced, not the
		// placeholder rule that makes JP's own check deny too.
		fmt.Fprintf(w, "    (no rules) the compiled policy %s\n", lint.EnforcedWhenEmpty("net"))
		net = nil
	}
	for i, r := range net {
		verdict := "deny"
		if r.Allow {
			verdict = "allow"
		}
		fmt.Fprintf(w, "    [%d] %-5s %-48s %s\n", i, verdict, termstyle.Safe(netTarget(r)), origin("net", i, ""))
	}

	fmt.Fprintln(w, "\n  environment (PATH, HOME, USER, LANG and the locale categories LC_ALL, LC_CTYPE, ... always pass unless a rule denies them):")
	written := false
	for _, o := range t.Origins {
		written = written || o.Kind == "env"
	}
	if !written {
		fmt.Fprintf(w, "    (no rules) the compiled policy %s", lint.EnforcedWhenEmpty("env"))
		if !o.Verbose {
			// The variables are jp-policy's, not the user's: one line.
			fmt.Fprintf(w, " (%d rules; --verbose lists them)\n", len(t.Access.Env))
		} else {
			fmt.Fprintln(w, ":")
		}
	}
	for i, r := range t.Access.Env {
		if !written && !o.Verbose {
			break
		}
		verdict := "deny"
		if r.Read {
			verdict = "pass"
		}
		fmt.Fprintf(w, "    [%d] %-5s %-30s %s\n", i, verdict, termstyle.Safe(r.Name), origin("env", i, ""))
	}

	fmt.Fprintln(w, "\n  commands:")
	if t.Access.Commands == nil {
		fmt.Fprintln(w, "    any program may run")
	} else {
		progs := make([]string, 0, len(t.Access.Commands))
		for p := range t.Access.Commands {
			progs = append(progs, p)
		}
		sort.Strings(progs)
		for _, p := range progs {
			c := t.Access.Commands[p]
			args := "any arguments"
			if c.Args != nil {
				var alts []string
				for _, a := range c.Args {
					alts = append(alts, termstyle.Safe(strings.Join(a, " ")))
				}
				args = "arguments exactly (a final ** matches any rest): " + strings.Join(alts, " | ")
			}
			fmt.Fprintf(w, "    %-12s %s   %s\n", termstyle.Safe(p), args, origin("commands", 0, p))
		}
	}

	if len(t.Access.Config) > 0 {
		fmt.Fprintln(w, "\n  config (RFD 078; longest dotted path wins, `*` is one segment):")
		for i, r := range t.Access.Config {
			var caps []string
			if r.Read {
				caps = append(caps, "read")
			}
			if r.Write != policy.ConfigWriteDeny {
				caps = append(caps, "write="+string(r.Write))
			}
			if r.Delete {
				caps = append(caps, "delete")
			}
			fmt.Fprintf(w, "    [%d] %-36s %-30s apply=%s  %s\n", i, termstyle.Safe(r.Path), strings.Join(caps, ", "), r.Apply, origin("config", i, ""))
		}
	}

	fmt.Fprintln(w, "\n  enforcement:")
	for _, plat := range platforms {
		clauses := res.Clauses[name][plat]
		fmt.Fprintf(w, "    %s (%s):\n", plat, t.Manifests[plat])
		hidden := 0
		for _, c := range clauses {
			if !o.Verbose && !userClause(c.ID) && c.Status == plan.Enforced {
				// What every tool gets, fully enforced: counted below.
				hidden++
				continue
			}
			line := fmt.Sprintf("      %-26s %-11s %s", termstyle.Safe(c.ID), c.Status, termstyle.Safe(c.What))
			if c.How != "" {
				line += " — " + c.How
			}
			if c.MinABI > 0 {
				line += fmt.Sprintf(" (Landlock ABI %d+)", c.MinABI)
			}
			fmt.Fprintln(w, line)
		}
		if hidden > 0 {
			fmt.Fprintf(w, "      and %d protections every tool gets (system libraries, seccomp, capabilities, scopes, protected paths), all enforced; --verbose lists them\n", hidden)
		}
	}
	if len(t.Warnings) > 0 {
		fmt.Fprintln(w, "\n  warnings:")
		for _, d := range t.Warnings {
			fmt.Fprintf(w, "    %s\n", termstyle.Safe(d.String()))
		}
	}
}

// userClause reports whether a clause ID is one of the policy's own
// types (fs, net, env, commands, config), which explain always shows;
// the rest is what jp-policy adds to every tool.
func userClause(id string) bool {
	kind, _, _ := strings.Cut(id, ".")
	kind, _, _ = strings.Cut(kind, "[")
	switch kind {
	case "fs", "net", "env", "commands", "config",
		"ns": // the namespaces' masks, read-only and protected binds follow from the rules
		return true
	}
	return false
}

func capList(r policy.FsRule) string {
	caps := r.GrantedNames()
	if len(caps) == 0 {
		return "nothing (denied)"
	}
	return strings.Join(caps, ", ")
}

func netTarget(r policy.NetRule) string {
	s := r.Host
	if r.Scheme != nil {
		s = *r.Scheme + "://" + s
	}
	if r.Port != nil {
		s += fmt.Sprintf(":%d", *r.Port)
	}
	if r.PathPrefix != nil {
		s += *r.PathPrefix
	}
	return s
}

// shortPos renders a position relative to the workspace root when it is
// inside it, so explain output stays readable.
func shortPos(root string, p diag.Position) string {
	return relPos(root, p).String()
}

// relPos is p with its file relative to root when it is inside it.
func relPos(root string, p diag.Position) diag.Position {
	if rel, err := filepath.Rel(root, p.File); err == nil && !strings.HasPrefix(rel, "..") {
		p.File = rel
	}
	return p
}
