package compiler

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/jp-policy/jp-policy/internal/jpdirs"
)

// TextPrompter asks on a terminal, in the words of RFD D43. Anything but
// an explicit yes is a no.
type TextPrompter struct {
	In  io.Reader
	Out io.Writer
	r   *bufio.Reader
}

// ApproveMount shows the binding (or the retarget) and the grants under
// it, and reads one answer.
func (p *TextPrompter) ApproveMount(m MountPrompt) (bool, error) {
	var b strings.Builder
	switch {
	case len(m.ApprovedIn) > 0:
		fmt.Fprintf(&b, "Approve this target binding for this workspace?\n\n  %s → %s\n\nIt was approved in %s (.jp/.id);\na repository that copied that id would inherit it, so it is asked again here.\n\n", m.RulePath, m.Target, jpdirs.SharingWorkspacesText(m.ApprovedIn))
	case m.Previous == "":
		fmt.Fprintf(&b, "Approve this target binding?\n\n  %s → %s\n\n", m.RulePath, m.Target)
	default:
		fmt.Fprintf(&b, "Symlink `%s` retargeted:\n  was: %s\n  now: %s\n\n", m.RulePath, m.Previous, m.Target)
	}
	b.WriteString("Current grants under this mount:\n")
	width := 0
	for _, g := range m.Grants {
		width = max(width, len(g.Tool)+1)
	}
	for _, g := range m.Grants {
		caps := strings.Join(g.Caps, ", ")
		if caps == "" {
			caps = "(nothing)"
		}
		fmt.Fprintf(&b, "  %-*s %s\n", width+1, g.Tool+":", caps)
	}
	b.WriteString("\nThe target binding will be remembered. Capability changes through\nconfig edits do not re-prompt while the target is unchanged.\n\n")
	if m.Previous == "" {
		b.WriteString("Approve? [y/N] ")
	} else {
		b.WriteString("Allow new target? [y/N] ")
	}
	return p.ask(b.String())
}
