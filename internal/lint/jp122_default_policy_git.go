package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/diag"
)

var ruleJP122 = Rule{
	ID: "JP122", Name: "default-policy-git", Severity: diag.Warning, Suppressible: true,
	Title: "Tools without `access` may write git hooks and config (RFD 075's default policy)",
	Description: "A local tool with no `access` block runs under RFD 075's default policy: the whole workspace read-write. " +
		"When the workspace is a git repository, that includes `.git/hooks` and `.git/config`, which git runs and honours unsandboxed, as you, on your next git command, " +
		"so the sandbox does not contain such a tool. JP116 reports the same for tools that declare `access`; this rule covers the defaulted ones, once per workspace.",
	Fix:   "Give these tools an `access` block with a read-only (or no-capability) rule for `.git/hooks` and `.git/config`, or suppress with the reason you trust them.",
	check: checkDefaultPolicyGit,
}

func checkDefaultPolicyGit(p *pass) {
	if p.l.Root == "" {
		return
	}
	var reach []string
	for _, rel := range []string{".git/hooks", ".git/config"} {
		if _, err := os.Lstat(filepath.Join(p.l.Root, filepath.FromSlash(rel))); err == nil {
			reach = append(reach, rel)
		}
	}
	if len(reach) == 0 {
		return
	}
	var names []string
	var first *config.Tool
	for _, t := range p.st.sorted {
		src := strings.TrimSpace(t.Source.Value)
		if t.Access != nil || !(src == "local" || strings.HasPrefix(src, "local.")) {
			continue
		}
		if first == nil {
			first = t
		}
		names = append(names, t.Name)
	}
	if first == nil {
		return
	}
	shown := names
	if len(shown) > 5 {
		shown = append(shown[:5:5], fmt.Sprintf("and %d more", len(names)-5))
	}
	p.report(first.Pos,
		fmt.Sprintf("%d local tool(s) without `access` run under RFD 075's default policy, which lets them write %s (git runs hooks unsandboxed, as you): %s",
			len(names), strings.Join(reach, " and "), strings.Join(shown, ", ")),
		"give these tools an `access` block with a read-only rule for .git/hooks and .git/config, or suppress with the reason you trust them")
}
