package lint

import (
	"fmt"
	"path/filepath"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/policy"
)

var ruleJP124 = Rule{
	ID: "JP124", Name: "fs-all-dropped", Severity: diag.Warning, Suppressible: true,
	Title: "Every fs rule of a tool is dropped on this machine, so the tool gets no filesystem access",
	Description: "External rules whose link is missing (JP105) or whose target is not approved (JP106) are dropped when the policy is compiled (RFD D43). " +
		"When that leaves a tool with declared fs rules and none of them in force, the compiled policy denies every path rather than reading the empty list as unrestricted: the tool runs, but cannot read or write anything.",
	Fix:   "Create or approve the external mounts (see the JP105/JP106 findings), or add the workspace rules the tool needs.",
	check: checkFSAllDropped,
}

// dropped reports whether the compiler will drop b on this machine: its
// link is broken, or its target is not the approved one.
func (p *pass) dropped(b *boundRule) bool {
	if b.err != nil {
		return b.err.Kind == policy.RuleBrokenLink
	}
	if !b.external {
		return false
	}
	stored, elsewhere, ok := p.approvedTarget(b)
	return !ok || elsewhere != nil || filepath.Clean(stored) != b.abs
}

// approvedTarget is the target the approvals store holds for an external
// rule's path, and the other workspaces it holds in when not in this one.
func (p *pass) approvedTarget(b *boundRule) (string, []string, bool) {
	if p.opts.Approvals == nil {
		return "", nil, false
	}
	return p.opts.Approvals.LookupIn(b.key, p.st.root)
}

func checkFSAllDropped(p *pass) {
	for _, tf := range p.st.tools {
		all := len(tf.rules) > 0
		for _, b := range tf.rules {
			if !p.dropped(b) {
				all = false
				break
			}
		}
		if !all {
			continue
		}
		a := tf.tool.Access
		p.report(FSAllDroppedPos(a.FSDecl, a.Pos),
			fmt.Sprintf("every fs rule of tool %q is dropped on this machine (broken or unapproved external mounts), so the compiled policy gives it no filesystem access", tf.tool.Name),
			"create or approve the external mounts named in the JP105/JP106 findings, or add the workspace rules the tool needs")
	}
}

// FSAllDroppedPos is where JP124 points: the last declaration of the
// tool's fs list (the one in force), else its access table. The compiler
// reports its own JP124 there too.
func FSAllDroppedPos(decl []diag.Position, access diag.Position) diag.Position {
	if len(decl) > 0 {
		return decl[len(decl)-1]
	}
	return access
}
