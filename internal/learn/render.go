package learn

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/jp-policy/jp-policy/internal/shquote"
	"github.com/jp-policy/jp-policy/internal/tomlquote"
)

// Marker starts every block learn writes, so a reader of the config file
// (and `git blame`) can tell proposed rules from hand-written ones.
const Marker = "# jp-policy learn: "

// Render writes p as TOML for conversation.tools.<tool>.access, in a
// stable order: the same proposal always renders the same text. home,
// when not "", is written as ~ in mount commands. what describes the run
// (the command line and how it ended) for the header comment.
func Render(tool string, p *Proposal, home, what string) string {
	var b strings.Builder
	key := "conversation.tools." + tomlquote.Key(tool) + ".access"
	fmt.Fprintf(&b, "%sproposed from an observed run of %s.\n", Marker, OneLine(what))
	b.WriteString("# Each rule grants what the run used there and no more; review it as any grant.\n")

	if len(p.FS) == 0 {
		b.WriteString("\n# The run used no file in the workspace: a rule with no capabilities denies them all.\n")
		fmt.Fprintf(&b, "[[%s.fs]]\npath = \".\"\n", key)
	}
	for _, r := range p.FS {
		path := r.Path
		if path == "" {
			path = "."
		}
		b.WriteString("\n")
		if len(r.Beside) > 0 {
			// A reviewed exception, with its reason, where lint would
			// otherwise ask for rules that break the run.
			fmt.Fprintf(&b, "# jp-policy: ignore JP116 -- the run creates or deletes entries in %s, and a read-only rule for %s there would withhold that (Landlock); exec keeps them read-only\n",
				OneLine(path), OneLine(strings.Join(r.Beside, ", ")))
		}
		fmt.Fprintf(&b, "[[%s.fs]]\npath = %s\n", key, tomlquote.String(path))
		if r.Op&OpRead != 0 {
			b.WriteString("read = true\n")
		}
		if w := r.Op & (OpCreate | OpUpdate | OpDelete); w == OpCreate|OpUpdate|OpDelete {
			b.WriteString("write = true\n")
		} else {
			for _, c := range []struct {
				op   Op
				name string
			}{{OpCreate, "create"}, {OpUpdate, "update"}, {OpDelete, "delete"}} {
				if w&c.op != 0 {
					b.WriteString(c.name + " = true\n")
				}
			}
		}
		if r.Op&OpExecute != 0 {
			b.WriteString("execute = true\n")
		}
	}

	if len(p.Net) == 0 && !p.NetDeclared {
		b.WriteString("\n# The run connected to no host: this rule makes the list non-empty, which denies every host.\n")
		fmt.Fprintf(&b, "[[%s.net]]\nhost = \"invalid\"\nallow = false\n", key)
	}
	for _, n := range p.Net {
		fmt.Fprintf(&b, "\n[[%s.net]]\nhost = %s\n", key, tomlquote.String(n.Host))
		if n.Scheme != "" {
			fmt.Fprintf(&b, "scheme = %s\n", tomlquote.String(n.Scheme))
		}
		fmt.Fprintf(&b, "port = %d\nallow = true\n", n.Port)
	}

	b.WriteString("\n# env: which variables a program reads cannot be observed. Without env rules\n")
	b.WriteString("# every variable is passed; add [[" + key + ".env]] rules to narrow them.\n")

	var used, probed []Mount
	for _, m := range p.Mounts {
		if m.System {
			probed = append(probed, m)
		} else {
			used = append(used, m)
		}
	}
	if len(used) > 0 {
		b.WriteString("\n# Outside the workspace the run used these; grant them with a mount (RFD D43),\n")
		b.WriteString("# never with an absolute rule:\n")
		for _, c := range MountCommands(tool, used, home) {
			// A newline in the traced path would end the comment.
			b.WriteString("#   " + OneLine(c) + "\n")
		}
	}
	if len(probed) > 0 {
		b.WriteString("\n# The run also read these system files outside exec's baseline. Many programs\n")
		b.WriteString("# look for such files and go on without them; mount one only if the command fails:\n")
		for _, c := range MountCommands(tool, probed, home) {
			b.WriteString("#   " + OneLine(c) + "\n")
		}
	}
	if len(p.Unix) > 0 {
		b.WriteString("\n# Unix-domain sockets the run connected to (no rule grants these; the\n# namespaced exec path cannot reach them):\n")
		for _, u := range p.Unix {
			b.WriteString("#   " + OneLine(u) + "\n")
		}
	}
	return b.String()
}

// MountCommands are the `jp-policy mount` lines that grant ms to tool.
func MountCommands(tool string, ms []Mount, home string) []string {
	var out []string
	for _, m := range ms {
		target := m.Target
		if home != "" {
			if rel, ok := within(home, target); ok && rel != "" {
				target = "~/" + filepath.ToSlash(rel)
			}
		}
		out = append(out, "jp-policy mount "+shquote.Quote(tool+":"+m.Name+"="+target+":"+m.Mode))
	}
	return out
}

// OneLine keeps a comment on one line whatever a path or command holds.
func OneLine(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
