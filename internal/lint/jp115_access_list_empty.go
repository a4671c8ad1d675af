package lint

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/diag"
)

var ruleJP115 = Rule{
	ID: "JP115", Name: "access-list-empty", Severity: diag.Warning, Suppressible: true,
	Title: "`access.fs`, `access.net` or `access.env` is declared but empty",
	Description: "An empty list, including `{ strategy = \"replace\", value = [] }`, is compiled as if the list were not declared, and that is not the same for each type. " +
		"`fs = []` grants the whole workspace, every capability (confined to the workspace; RFD 076), which reads like \"nothing allowed\" and grants the opposite. " +
		"`net = []` denies all network and `env = []` passes only RFD 075's minimal environment (PATH, HOME, USER, LANG and the locale variables): RFD 076 would read both as unrestricted, but the OS sandbox of RFD 075 cannot express that, so jp-policy enforces RFD 075's default (README, \"Where the RFDs differ\"). " +
		"Either way the empty declaration says nothing the compiled policy does not already do, and it may have been meant as the opposite.",
	Fix:   "Add the rules the tool needs, or delete the empty declaration (`jp-policy lint --fix` does), which compiles to the same policy.",
	check: checkAccessListEmpty,
}

func checkAccessListEmpty(p *pass) {
	for _, t := range p.st.sorted {
		a := t.Access
		if a == nil {
			continue
		}
		lists := []struct {
			name  string
			n     int
			decl  []diag.Position
			means string
		}{
			{"fs", len(a.FS), a.FSDecl, EnforcedWhenEmpty("fs")},
			{"net", len(a.Net), a.NetDecl, EnforcedWhenEmpty("net")},
			{"env", len(a.Env), a.EnvDecl, EnforcedWhenEmpty("env")},
		}
		for _, l := range lists {
			if l.n > 0 || len(l.decl) == 0 || lostByDiscard(a, l.name) || p.entriesRejected(t.Name, l.name) {
				continue
			}
			// The last declaration is the one that left the list empty.
			p.reportFix(l.decl[len(l.decl)-1],
				fmt.Sprintf("access.%s of tool %q is declared but holds no rule, so the compiled policy %s", l.name, t.Name, l.means),
				fmt.Sprintf("add the %s rules the tool needs, or remove the empty declaration, which compiles to the same policy", l.name),
				p.emptyListFix(l.name, l.decl))
		}
	}
}

// entriesRejected reports whether the loader rejected an entry of the
// tool's access list (a JP002 or JP003 error under
// conversation.tools.NAME.access.LIST[...]): the list is empty because
// the decoders left that entry out, not because the user wrote it empty,
// and the loader's error is the one finding for it. (oneFinding cannot
// tell: an entry written as [[...access.net]] has its error on a later
// line than the declaration.)
func (p *pass) entriesRejected(tool, list string) bool {
	prefix := "conversation.tools." + tool + ".access." + list + "["
	for _, d := range p.l.Diagnostics {
		if d.Severity == diag.Error && (d.Rule == "JP002" || d.Rule == "JP003") && strings.HasPrefix(d.Message, prefix) {
			return true
		}
	}
	return false
}

// lostByDiscard reports whether the list is empty because a later layer
// dropped its discard_when_merged rules, which JP130 reports.
func lostByDiscard(a *config.Access, list string) bool {
	for _, r := range a.Replaced {
		if r.List == list && r.Reason == "discard_when_merged" && r.Empty {
			return true
		}
	}
	return false
}

// EnforcedWhenEmpty says what the compiled policy does for a tool whose
// access list of the given type ("fs", "net" or "env") holds no rule. It
// is the one wording lint, explain and the docs use, and the agreement
// test holds it against what check answers for the compiled policy.
func EnforcedWhenEmpty(list string) string {
	switch list {
	case "fs":
		return "grants the whole workspace, every capability (confined to the workspace)"
	case "net":
		return "denies all network access"
	case "env":
		return "passes only the minimal environment (PATH, HOME, USER, LANG and the locale variables)"
	}
	return "applies RFD 075's default"
}

// emptyListKey matches a line that only declares an empty list with the
// default (append) strategy: `net = []`, `access.env = [ ]  # comment`.
// It is compiled on first use, not at every jp-policy start (exec
// included): compiling it at init was most of this package's init time.
func emptyListKey() *regexp.Regexp {
	emptyListKeyOnce.Do(func() {
		emptyListKeyOnce.re = regexp.MustCompile(`^\s*(?:[A-Za-z0-9_-]+\s*\.\s*)*([A-Za-z0-9_-]+)\s*=\s*\[\s*\]\s*(?:#.*)?$`)
	})
	return emptyListKeyOnce.re
}

var emptyListKeyOnce struct {
	sync.Once
	re *regexp.Regexp
}

// emptyListFix deletes the declarations of an empty list when every one
// of them is a `name = []` line of a TOML file: appending nothing changes
// no merged list, so the compiled policy stays the same. Any other form
// (`{ strategy = "replace", value = [] }`, which also drops what earlier
// layers wrote) is left to the author.
func (p *pass) emptyListFix(name string, decls []diag.Position) *diag.Fix {
	fix := &diag.Fix{Message: "remove the empty access." + name + " declaration"}
	for _, d := range decls {
		src, ok := p.l.Files[d.File]
		if !ok || !strings.EqualFold(filepath.Ext(d.File), ".toml") || d.EndLine != d.Line {
			return nil
		}
		line, ok := lineOf(src, d.Line)
		if m := emptyListKey().FindStringSubmatch(line); !ok || m == nil || m[1] != name {
			return nil
		}
		fix.Edits = append(fix.Edits, deleteLines("", d.File, d.Line, d.Line).Edits...)
	}
	return fix
}
