package grantdiff

import (
	"fmt"
	"github.com/jp-policy/jp-policy/internal/termstyle"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// Clause names, in the order changes are reported within a tool.
const (
	ClauseTool     = "tool"
	ClauseFS       = "fs"
	ClauseNet      = "net"
	ClauseEnv      = "env"
	ClauseCommands = "commands"
	ClauseConfig   = "config"
)

// clauseRank orders clauses within a tool (a switch, not a map, so the
// package has nothing to initialise on exec's start-up).
func clauseRank(c string) int {
	switch c {
	case ClauseTool:
		return 0
	case ClauseFS:
		return 1
	case ClauseNet:
		return 2
	case ClauseEnv:
		return 3
	case ClauseCommands:
		return 4
	}
	return 5
}

// Item is one group of targets that gained (or lost) the same
// capabilities: "create, update, delete" on ".", including ".jp".
type Item struct {
	What string   `json:"what"`
	On   []string `json:"on,omitempty"`
	// Including names self-escalation paths (JP116's: .jp, .jp.toml,
	// .git/hooks, .git/config) inside On that the change reaches.
	Including []string `json:"including,omitempty"`
}

func (it Item) String() string {
	var s string
	switch {
	case len(it.On) == 0:
		s = it.What
	case strings.HasSuffix(it.What, " with") || strings.HasSuffix(it.What, " see"):
		s = it.What + " " + quoteAll(it.On)
	case strings.HasPrefix(it.What, "connect"):
		s = it.What + " to " + quoteAll(it.On)
	default:
		s = it.What + " on " + quoteAll(it.On)
	}
	if len(it.Including) > 0 {
		inc := make([]string, len(it.Including))
		for i, p := range it.Including {
			inc[i] = termstyle.Inline(p) // a region of a rule path: from config
		}
		s += " (including " + strings.Join(inc, ", ") + ")"
	}
	return s
}

// Change is one clause of one tool that differs between the two sides.
type Change struct {
	Tool   string `json:"tool"`
	Clause string `json:"clause"`
	// Widened: something is allowed after that was not before. Narrowed:
	// the reverse. Both can hold (a grant moved); neither holds for a
	// change that decides nothing differently (a tool's defaulted flag).
	Widened  bool   `json:"widened"`
	Narrowed bool   `json:"narrowed"`
	Before   string `json:"before,omitempty"`
	After    string `json:"after,omitempty"`
	// Gained and Lost are what is newly allowed and no longer allowed.
	Gained []Item `json:"gained,omitempty"`
	Lost   []Item `json:"lost,omitempty"`
}

// Effect is "widened", "narrowed", "widened and narrowed" or "changed".
func (c Change) Effect() string {
	switch {
	case c.Widened && c.Narrowed:
		return "widened and narrowed"
	case c.Widened:
		return "widened"
	case c.Narrowed:
		return "narrowed"
	}
	return "changed"
}

// Diff is every change between two artifacts, sorted by tool and clause.
type Diff struct {
	Changes []Change `json:"changes"`
}

// Widened reports whether any change widens a grant.
func (d *Diff) Widened() bool {
	for _, c := range d.Changes {
		if c.Widened {
			return true
		}
	}
	return false
}

// Empty reports whether the two sides grant exactly the same.
func (d *Diff) Empty() bool { return len(d.Changes) == 0 }

// Tools lists the tools with changes, and those among them that widened.
func (d *Diff) Tools() (changed, widened []string) {
	seen, wseen := map[string]bool{}, map[string]bool{}
	for _, c := range d.Changes {
		if !seen[c.Tool] {
			seen[c.Tool] = true
			changed = append(changed, c.Tool)
		}
		if c.Widened && !wseen[c.Tool] {
			wseen[c.Tool] = true
			widened = append(widened, c.Tool)
		}
	}
	return changed, widened
}

// Compare diffs the tools of two artifacts. Either side may be nil (no
// tools). Roots may differ: fs rules are compared relative to the root.
func Compare(old, new *artifact.Policy) (*Diff, error) {
	evalRoot, err := os.MkdirTemp("", "jp-policy-grantdiff-")
	if err != nil {
		return nil, fmt.Errorf("grant diff: %w", err)
	}
	defer os.Remove(evalRoot)
	return compareAt(evalRoot, old, new)
}

// compareAt runs the comparison with evalRoot, an existing empty
// directory, as the evaluation root of both sides: nothing under it
// exists, so every rule path is its own canonical form and decisions are
// made on the rule keys alone.
func compareAt(evalRoot string, old, new *artifact.Policy) (*Diff, error) {
	tools := func(p *artifact.Policy) map[string]*artifact.Tool {
		if p == nil {
			return nil
		}
		return p.Tools
	}
	ot, nt := tools(old), tools(new)
	names := map[string]bool{}
	for n := range ot {
		names[n] = true
	}
	for n := range nt {
		names[n] = true
	}
	d := &Diff{Changes: []Change{}}
	for name := range names {
		cs, err := compareTool(evalRoot, name, ot[name], nt[name])
		if err != nil {
			return nil, err
		}
		d.Changes = append(d.Changes, cs...)
	}
	sort.SliceStable(d.Changes, func(i, j int) bool {
		a, b := d.Changes[i], d.Changes[j]
		if a.Tool != b.Tool {
			return a.Tool < b.Tool
		}
		return clauseRank(a.Clause) < clauseRank(b.Clause)
	})
	return d, nil
}

// nothing is the policy of a tool that is not there: no path, no host,
// no variable, no program, no config.
func nothing() policy.AccessPolicy {
	return policy.AccessPolicy{
		FS:       policy.DenyAllFS(),
		Net:      []policy.NetRule{{Host: policy.DenyNetHost}},
		Env:      []policy.EnvRule{{Name: "*"}},
		Commands: map[string]policy.CommandRule{},
	}
}

// ToolChanges compares one tool's two compiled entries (nil: absent).
func compareTool(evalRoot, name string, o, n *artifact.Tool) ([]Change, error) {
	var out []Change
	oa, na := nothing(), nothing()
	if o != nil {
		oa = o.Access
	}
	if n != nil {
		na = n.Access
	}
	switch {
	case o == nil && n == nil:
		return nil, nil
	case o == nil:
		out = append(out, Change{Tool: name, Clause: ClauseTool, Widened: true, Before: "absent", After: describeTool(n), Gained: []Item{{What: "a new tool"}}})
	case n == nil:
		out = append(out, Change{Tool: name, Clause: ClauseTool, Narrowed: true, Before: describeTool(o), After: "removed", Lost: []Item{{What: "the tool"}}})
	default:
		if o.Enabled != n.Enabled || o.Defaulted != n.Defaulted {
			c := Change{Tool: name, Clause: ClauseTool, Before: describeTool(o), After: describeTool(n)}
			if !o.Enabled && n.Enabled {
				c.Widened = true
				c.Gained = []Item{{What: "enabled", On: []string{name}}}
			}
			if o.Enabled && !n.Enabled {
				c.Narrowed = true
				c.Lost = []Item{{What: "enabled", On: []string{name}}}
			}
			out = append(out, c)
		}
	}
	fc, err := diffFS(evalRoot, oa.FS, na.FS)
	if err != nil {
		return nil, fmt.Errorf("tool %s: %w", name, err)
	}
	nc, err := diffNet(evalRoot, oa.Net, na.Net)
	if err != nil {
		return nil, fmt.Errorf("tool %s: %w", name, err)
	}
	ec, err := diffEnv(oa.Env, na.Env)
	if err != nil {
		return nil, fmt.Errorf("tool %s: %w", name, err)
	}
	cc := diffCommands(oa.Commands, na.Commands)
	kc, err := diffConfig(evalRoot, oa.Config, na.Config)
	if err != nil {
		return nil, fmt.Errorf("tool %s: %w", name, err)
	}
	for _, c := range []*Change{fc, nc, ec, cc, kc} {
		if c != nil {
			c.Tool = name
			// An absent tool's clauses are compared as granting nothing;
			// say "absent", not how nothing is spelled.
			if o == nil {
				c.Before = "absent"
			}
			if n == nil {
				c.After = "removed"
			}
			out = append(out, *c)
		}
	}
	return out, nil
}

func describeTool(t *artifact.Tool) string {
	var parts []string
	if t.Enabled {
		parts = append(parts, "enabled")
	} else {
		parts = append(parts, "disabled")
	}
	if t.Defaulted {
		parts = append(parts, "default policy (no `access`)")
	} else {
		parts = append(parts, "declared `access`")
	}
	return strings.Join(parts, ", ")
}

// classify sets Widened/Narrowed from Gained/Lost.
func classify(c *Change) *Change {
	c.Widened = len(c.Gained) > 0
	c.Narrowed = len(c.Lost) > 0
	return c
}

// groupItems turns per-target capability sets into items, grouping
// targets that gained the same set; order follows the targets' order.
func groupItems(targets []string, caps map[string][]string, including map[string][]string) []Item {
	var items []Item
	at := map[string]int{}
	for _, t := range targets {
		cs := caps[t]
		if len(cs) == 0 {
			continue
		}
		what := strings.Join(cs, ", ")
		i, ok := at[what]
		if !ok {
			i = len(items)
			at[what] = i
			items = append(items, Item{What: what})
		}
		items[i].On = append(items[i].On, t)
		for _, inc := range including[t] {
			if !contains(items[i].Including, inc) {
				items[i].Including = append(items[i].Including, inc)
			}
		}
	}
	return items
}

func contains(xs []string, x string) bool {
	return slices.Contains(xs, x)
}

func quoteAll(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = termstyle.Code(x)
	}
	return strings.Join(q, ", ")
}
