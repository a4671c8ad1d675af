package landlock

import (
	"path/filepath"
	"slices"
	"sort"

	"github.com/jp-policy/jp-policy/internal/emit"
	"github.com/jp-policy/jp-policy/policy"
)

// NSPlan is how a launcher with a private mount namespace builds the
// tool's filesystem from its grants (bubblewrap-style): only the baseline
// and these binds exist; a bind is read-only unless a rule grants a write
// capability there; masks hide narrowed paths exactly (including ones that
// do not exist yet); protected paths stay read-only inside writable binds.
// Landlock (FS or MaskedFS) and seccomp stay on as the next layers.
type NSPlan struct {
	Binds     []NSBind `json:"binds"`
	Masks     []string `json:"masks"`
	Protected []string `json:"protected"`
}

// NSBind is one policy grant as a bind mount of the path onto itself.
type NSBind struct {
	Path string `json:"path"`
	RW   bool   `json:"rw"`
}

// ProtectedNames are the paths inside a writable root that stay read-only
// unless a rule names them: git runs hooks and reads its config
// unsandboxed on the user's next commit, and .jp/ and .jp.toml are the
// tool's own policy (Codex CLI keeps .git and its config read-only under
// writable roots; sandbox-runtime has mandatory deny-write paths).
//
// The whole of .git, not only hooks/ and config: git takes its config and
// hooks from wherever .git/commondir points (a file the tool could create
// beside a read-only config: attack_ns_git.txtar), runs submodules' hooks
// and core.fsmonitor from .git/modules/*/config, and linked worktrees'
// from .git/worktrees/*; a missing name cannot be bound over without
// breaking git, so the directory that holds them is what stays read-only.
// A `.git` file (a linked worktree's gitdir pointer) is bound read-only
// the same way.
var ProtectedNames = []string{".git", ".jp", ".jp.toml"}

// nsPlan derives the plan from the live (non-shadowed) rules.
func nsPlan(live []emit.AbsRule) *NSPlan {
	p := &NSPlan{Binds: []NSBind{}, Masks: []string{}, Protected: []string{}}
	named := map[string]bool{}
	for _, r := range live {
		named[r.Abs] = true
		caps := emit.CapsOf(r.Rule)
		if RightsOf(caps) == 0 {
			if hasAncestorRule(live, r.Abs) {
				p.Masks = append(p.Masks, r.Abs)
			}
			continue
		}
		rw := caps.Has(policy.Create) || caps.Has(policy.Update) || caps.Has(policy.Delete)
		p.Binds = append(p.Binds, NSBind{Path: r.Abs, RW: rw})
	}
	for _, b := range p.Binds {
		if !b.RW {
			continue
		}
		for _, n := range ProtectedNames {
			c := filepath.Join(b.Path, filepath.FromSlash(n))
			if named[c] || slices.Contains(p.Protected, c) || !writableAt(p.Binds, c) {
				continue
			}
			p.Protected = append(p.Protected, c)
		}
	}
	// A mount point cannot be renamed or removed (EBUSY), but its parent
	// directories can: `mv sub sub-old && mkdir -p sub/.git` would leave
	// a protected sub/.git (a rule on sub) or a mask behind and put a
	// writable one where it was. So every directory between a writable
	// bind and a protected or masked path becomes a mount point too: a
	// read-write bind of itself, which changes no right.
	bound := map[string]bool{}
	for _, b := range p.Binds {
		bound[b.Path] = true
	}
	for _, t := range append(append([]string(nil), p.Protected...), p.Masks...) {
		for d := filepath.Dir(t); !bound[d] && d != filepath.Dir(d); d = filepath.Dir(d) {
			if !writableAt(p.Binds, d) {
				break // a read-only bind above: nothing below it moves
			}
			p.Binds = append(p.Binds, NSBind{Path: d, RW: true})
			bound[d] = true
		}
	}
	sort.Slice(p.Binds, func(i, j int) bool { return p.Binds[i].Path < p.Binds[j].Path })
	sort.Strings(p.Masks)
	sort.Strings(p.Protected)
	return p
}

// writableAt reports whether the deepest bind containing c is writable
// (a read-only rule between the root and c already protects it).
func writableAt(binds []NSBind, c string) bool {
	best, rw := -1, false
	for _, b := range binds {
		if emit.Within(c, b.Path) && len(b.Path) > best {
			best, rw = len(b.Path), b.RW
		}
	}
	return rw
}
