package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jp-policy/jp-policy/internal/diag"
)

var ruleJP132 = Rule{
	ID: "JP132", Name: "home-writable", Severity: diag.Error, Suppressible: true,
	Title: "A rule lets a tool write your home directory, ~/.config or ~/.local, or a directory that holds one",
	Description: "A write grant over the home directory (a `jp-policy mount TOOL:NAME=~:rw`, a workspace that is the home directory, or a mount of `/home` or `/`), or over the XDG config directory (`~/.config`) or `~/.local`, which hold every program's config and user libraries, reaches every file that some program you run later reads as code or as config that runs code. " +
		"exec keeps the ones it knows read-only (JP116 names them: shell, editor and tool start-up files, the directories on PATH, jp-policy's own binaries and pins), but a deny list cannot be complete: any other program's start-up file stays writable. " +
		"So such a rule is an error until you acknowledge it with a suppression that says why the tool needs it (`# jp-policy: ignore JP132 -- REASON` directly above the rule); compile refuses it until then.",
	Fix:   "Mount only the directories the tool needs (`~/.cache/go-build`, `~/go/pkg/mod`, a project directory), or acknowledge the grant: write `# jp-policy: ignore JP132 -- why this tool needs your home writable` directly above the rule.",
	check: checkHomeWritable,
}

func checkHomeWritable(p *pass) {
	home := p.st.home
	if home == "" || !filepath.IsAbs(home) {
		return
	}
	home = filepath.Clean(home)
	if real, err := filepath.EvalSymlinks(home); err == nil {
		home = real
	}
	// Tools without `access` run under RFD 075's default policy, the
	// whole workspace read-write: a workspace that is the home directory
	// (or holds it) gives them all of it.
	if _, ok := relUnder(p.l.Root, home); ok && p.l.Root != "" {
		for _, t := range p.st.sorted {
			src := strings.TrimSpace(t.Source.Value)
			if t.Access != nil || !(src == "local" || strings.HasPrefix(src, "local.")) {
				continue
			}
			p.report(t.Pos,
				fmt.Sprintf("tool %q has no `access`, so RFD 075's default policy lets it write the whole workspace, which is your home directory (or holds it): every start-up file no list names stays writable", t.Name),
				"give the tool an `access` block with the directories it needs, or acknowledge it: `# jp-policy: ignore JP132 -- REASON` directly above the tool's table")
		}
	}
	// Beside the home directory, the two directories under it that hold
	// every program's start-up files: the XDG config directory (a mount
	// of ~/.config reached VS Code's settings, direnv's direnvrc, gh's
	// aliases, none of them on a list) and ~/.local (Python's user
	// site-packages, desktop entries, every program's data): a write
	// grant over one is as open as one over the home directory.
	tops := []struct{ dir, name string }{{home, "your home directory"}}
	getenv := p.opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	// ~/.config even when XDG_CONFIG_HOME names another directory: not
	// every program reads the variable.
	others := []struct{ dir, name string }{
		{filepath.Join(home, ".config"), "your config directory (every program's config)"},
		{filepath.Join(home, ".local"), "~/.local (every program's user data and libraries)"},
	}
	if cfg := getenv("XDG_CONFIG_HOME"); cfg != "" && filepath.IsAbs(cfg) {
		others = append(others, struct{ dir, name string }{cfg, "your config directory (every program's config)"})
	}
	for _, t := range others {
		t.dir = filepath.Clean(t.dir)
		if real, err := filepath.EvalSymlinks(t.dir); err == nil {
			t.dir = real
		}
		tops = append(tops, t)
	}
	for _, tf := range p.st.tools {
		for _, b := range tf.rules {
			if b.err != nil || !b.grantsWrite() {
				continue
			}
			top := -1
			for i, t := range tops {
				if _, ok := relUnder(b.abs, t.dir); ok {
					top = i
					break
				}
			}
			if top < 0 {
				continue // none of them, nor above one
			}
			what := tops[top].name
			if filepath.Clean(b.abs) != tops[top].dir {
				what = b.abs + ", which holds " + tops[top].name
			}
			p.report(p.valueOf(b.rule.Keys, "path", b.rule.Pos),
				fmt.Sprintf("tool %q can %s %s through fs rule %q: every start-up file no list names stays writable",
					tf.tool.Name, writeCaps(b), what, b.rule.Path),
				"mount only the directories the tool needs, or acknowledge it: `# jp-policy: ignore JP132 -- REASON` directly above the rule")
		}
	}
}
