package learn

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/jp-policy/jp-policy/internal/tomlquote"
)

// DenialLines explains each distinct refused access of a run, one line
// each, with the rule or `jp-policy mount` that would allow it: the same
// proposal learn would make for that access alone, so the hint is what
// package policy checked. At most max lines, then one line with how many
// more were refused.
func DenialLines(tool string, obs Observations, ctx Context, home string, max int) []string {
	type key struct {
		path string
		op   Op
		conn Connect
	}
	seen := map[key]bool{}
	var out []string
	more := 0
	// Every path, name and command in a line is the traced command's
	// choice: the whole line is escaped for the terminal, the mount
	// command and the TOML rule included.
	emit := func(line string) {
		if max > 0 && len(out) >= max {
			more++
			return
		}
		out = append(out, OneLine(line))
	}
	for _, d := range obs.Denied {
		k := key{path: d.File.Path, op: d.File.Op}
		if seen[k] || d.File.Path == "" {
			continue
		}
		seen[k] = true
		who := fmt.Sprintf("%s, pid %d: %s", OneLine(d.Comm), d.PID, d.Errno)
		emit(fmt.Sprintf("denied %s on %s (%s); %s", d.File.Op, OneLine(display(d.File.Path, ctx.Root, home)), who, allowFile(tool, d.File, ctx, home)))
	}
	for _, d := range obs.DeniedConnects {
		k := key{conn: d.Connect}
		if seen[k] {
			continue
		}
		seen[k] = true
		p := proposeNet([]Connect{d.Connect})
		who := fmt.Sprintf("%s, pid %d: %s", OneLine(d.Comm), d.PID, d.Errno)
		emit(fmt.Sprintf("denied connect to %s (%s); allowed by a net rule: %s", OneLine(endpoint(d.Connect)), who, inlineNet(tool, p[0])))
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("and %d more refused accesses", more))
	}
	if obs.DeniedMore > 0 {
		out = append(out, fmt.Sprintf("and %d more refused calls, beyond the %d distinct refusals kept", obs.DeniedMore, MaxDenied))
	}
	return out
}

// allowFile says what would allow fa: fs rules, a mount, or nothing.
func allowFile(tool string, fa FileAccess, ctx Context, home string) string {
	if rel, ok := within(ctx.Root, fa.Path); ok && jpOwn(rel) {
		return "no rule allows it: exec keeps JP's own config read-only for every tool"
	}
	// The proposal for this access alone. A path that is gone (a name the
	// run could not create) is granted through its directory, as learn
	// grants it.
	p, err := Propose(Observations{Files: []FileAccess{fa}}, ctx)
	if err != nil {
		return "no rule proposal: " + err.Error()
	}
	switch {
	case len(p.FS) > 0:
		var rules []string
		for _, r := range p.FS {
			rules = append(rules, inlineFS(r))
		}
		return "allowed by adding to conversation.tools." + tomlquote.Key(tool) + ".access.fs: " + strings.Join(rules, ", ")
	case len(p.Mounts) > 0:
		for _, m := range p.Mounts {
			for _, sp := range ctx.Secret {
				_, below := within(sp, m.Target)
				_, above := within(m.Target, sp)
				if below || above {
					return "no mount proposed: " + display(sp, ctx.Root, home) + " is a sensitive path (lint JP107: keys and credentials); mount it yourself only if the tool must have it"
				}
			}
		}
		if fa.Op&(OpCreate|OpUpdate|OpDelete) != 0 {
			for _, m := range p.Mounts {
				for _, g := range ctx.Guarded {
					_, below := within(g.Path, m.Target)
					_, above := within(m.Target, g.Path)
					if below || above {
						return "no mount proposed: exec keeps " + display(g.Path, ctx.Root, home) + " read-only for every tool unless a rule names it (" + g.Why + ")"
					}
				}
			}
		}
		return "allowed by a mount: " + strings.Join(MountCommands(tool, p.Mounts, home), "; ")
	}
	return "no rule allows it: outside the workspace and every mount, exec keeps it closed for every tool"
}

func inlineFS(r Rule) string {
	path := r.Path
	if path == "" {
		path = "."
	}
	parts := []string{"path = " + tomlquote.String(path)}
	for _, c := range r.Op.Capabilities() {
		parts = append(parts, c.String()+" = true")
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

func inlineNet(tool string, n Net) string {
	parts := []string{"host = " + tomlquote.String(n.Host)}
	if n.Scheme != "" {
		parts = append(parts, "scheme = "+tomlquote.String(n.Scheme))
	}
	parts = append(parts, fmt.Sprintf("port = %d", n.Port), "allow = true")
	return "conversation.tools." + tomlquote.Key(tool) + ".access.net: { " + strings.Join(parts, ", ") + " }"
}

func endpoint(c Connect) string {
	host := c.Addr
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if c.Name != "" {
		return fmt.Sprintf("%s:%d (%s)", c.Name, c.Port, c.Addr)
	}
	return fmt.Sprintf("%s:%d", host, c.Port)
}

// display is p relative to the workspace, or with ~ for the home.
func display(p, root, home string) string {
	if rel, ok := within(root, p); ok {
		if rel == "" {
			return "."
		}
		return rel
	}
	if home != "" {
		if rel, ok := within(home, p); ok && rel != "" {
			return "~/" + filepath.ToSlash(rel)
		}
	}
	return p
}
