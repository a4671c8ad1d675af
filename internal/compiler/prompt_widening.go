package compiler

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/jp-policy/jp-policy/internal/grantdiff"
)

// AcceptWidening shows the grant diff and asks, like the D43 approval
// prompt: anything but an explicit yes is a no.
func (p *TextPrompter) AcceptWidening(d *grantdiff.Diff) (bool, error) {
	var b strings.Builder
	b.WriteString("The config now grants more than the policy you accepted:\n\n")
	for line := range strings.SplitSeq(strings.TrimSuffix(d.Text(), "\n"), "\n") {
		b.WriteString("  " + line + "\n")
	}
	b.WriteString("\nA tool may have written this config. The accepted grants will be\nremembered; compiling the same grants again does not re-prompt.\n\nAccept the widened grants? [y/N] ")
	return p.ask(b.String())
}

// ask writes text and reads one answer; end of input is a no.
func (p *TextPrompter) ask(text string) (bool, error) {
	if p.r == nil {
		p.r = bufio.NewReader(p.In)
	}
	if _, err := io.WriteString(p.Out, text); err != nil {
		return false, err
	}
	line, err := p.r.ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(p.Out)
		return false, nil // end of input is a no
	}
	ans := strings.ToLower(strings.TrimSpace(line))
	return ans == "y" || ans == "yes", nil
}
