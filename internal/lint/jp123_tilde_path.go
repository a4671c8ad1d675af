package lint

import (
	"fmt"
	"path"
	"strings"

	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/diag"
)

var ruleJP123 = Rule{
	ID: "JP123", Name: "tilde-path", Severity: diag.Warning, Suppressible: true,
	Title: "An fs rule path starts with `~`, which JP reads as a workspace folder named `~`, not your home directory",
	Description: "JP does not expand `~` in rule paths: they are workspace-relative (RFD 076), so `path = \"~/.ssh\"` names `<workspace>/~/.ssh`. " +
		"The rule grants nothing on your home directory, and if a folder named `~` is ever created in the workspace (a shell script that quotes `\"~/x\"` does that), it grants whatever is put there. " +
		"A directory outside the workspace is reached through a symlink and an `external` rule (RFD D43), which `jp-policy mount` writes in one step.",
	Fix:   "Mount the directory: `jp-policy mount TOOL:NAME=~/DIR:ro` (the shell, or jp-policy, expands `~` there) and let the rule name the link. If you really mean a folder named `~`, suppress with that reason.",
	check: checkTildePath,
}

func checkTildePath(p *pass) {
	for _, t := range p.st.sorted {
		if t.Access == nil {
			continue
		}
		for _, r := range t.Access.FS {
			if !isTildePath(r.Path) {
				continue
			}
			p.report(p.valueOf(r.Keys, "path", r.Pos),
				fmt.Sprintf("fs rule %q of tool %q names a workspace folder called %q: JP does not expand ~ in rule paths, so this is not your home directory",
					r.Path, t.Name, firstElem(r.Path)),
				fmt.Sprintf("to give the tool %s, mount it: `%s`, which links it into the workspace and writes the external rule; if you mean a folder named ~, suppress with that reason",
					r.Path, mountSuggestion(t, r)))
		}
	}
}

// isTildePath reports a rule path a shell would expand: `~`, `~/...` or
// `~user/...` (and their Windows spelling).
func isTildePath(p string) bool {
	return strings.HasPrefix(strings.TrimSpace(p), "~")
}

func firstElem(p string) string {
	p = strings.ReplaceAll(strings.TrimSpace(p), `\`, "/")
	first, _, _ := strings.Cut(p, "/")
	return first
}

// mountSuggestion is the mount line for rule r of tool t: the link is
// named after the directory (without a leading dot), the mode follows
// whether the rule grants more than read.
func mountSuggestion(t *config.Tool, r config.FsRule) string {
	p := strings.TrimRight(strings.ReplaceAll(strings.TrimSpace(r.Path), `\`, "/"), "/")
	name := strings.TrimLeft(path.Base(p), ".~")
	if name == "" || name == "/" {
		name = "home"
	}
	mode := "ro"
	for _, b := range []*bool{r.Write, r.Create, r.Update, r.Delete} {
		if b != nil && *b {
			mode = "rw"
		}
	}
	return fmt.Sprintf("jp-policy mount %s:%s=%s:%s", t.Name, name, p, mode)
}
