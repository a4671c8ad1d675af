package landlock

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/policy"
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
	// Pin marks a bind no rule asked for: a directory between a writable
	// bind and a protected or masked path, bound onto itself so that it
	// cannot be moved (pinAncestors).
	Pin bool `json:"pin,omitempty"`
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

// PinAncestors makes every directory between a writable bind and each
// target a mount point too. A mount point cannot be renamed or removed
// (EBUSY), but its parent directories can: `mv .git .git-old && mkdir -p
// .git/hooks` would leave the read-only hooks behind and put writable ones
// where git looks. A read-write bind of a directory onto itself changes no
// right.
func (p *NSPlan) PinAncestors(targets []string) {
	bound := map[string]bool{}
	for _, b := range p.Binds {
		bound[b.Path] = true
	}
	for _, t := range targets {
		for d := filepath.Dir(t); !bound[d] && d != filepath.Dir(d); d = filepath.Dir(d) {
			if !p.WritableAt(d) {
				break // a read-only bind above: nothing below it moves
			}
			p.Binds = append(p.Binds, NSBind{Path: d, RW: true, Pin: true})
			bound[d] = true
		}
	}
}

// WithProtected returns a copy of p with more protected paths (found by
// the launcher at exec time: the git directories a .git file points to),
// keeping those that lie under a writable bind and are not named by a
// rule or protected already, with their ancestors pinned like the rest.
func (p *NSPlan) WithProtected(extra []string) *NSPlan {
	q := &NSPlan{Binds: slices.Clone(p.Binds), Masks: p.Masks, Protected: slices.Clone(p.Protected)}
	var added []string
	for _, c := range extra {
		if slices.Contains(q.Protected, c) {
			continue
		}
		// A pin (`.git` as the way to .git/hooks, when .git turns out to
		// be a file) gives way to the protection; a rule's bind does not.
		q.Binds = slices.DeleteFunc(q.Binds, func(b NSBind) bool { return b.Path == c && b.Pin })
		if slices.ContainsFunc(q.Binds, func(b NSBind) bool { return b.Path == c }) || !q.WritableAt(c) {
			continue
		}
		q.Protected = append(q.Protected, c)
		added = append(added, c)
	}
	if len(added) == 0 {
		return p
	}
	q.PinAncestors(added)
	sort.Slice(q.Binds, func(i, j int) bool { return q.Binds[i].Path < q.Binds[j].Path })
	sort.Strings(q.Protected)
	return q
}

// WritableAt reports whether the deepest mount containing c is writable:
// a bind is as its rule says, a protected path is a read-only bind (so
// nothing below .git is pinned read-write, which would lay a writable
// mount over the protected one: .git/modules/NAME became writable that
// way once). A read-only mount between the root and c already protects it.
func (p *NSPlan) WritableAt(c string) bool {
	best, rw := -1, false
	for _, b := range p.Binds {
		if policy.Within(c, b.Path) && len(b.Path) > best {
			best, rw = len(b.Path), b.RW
		}
	}
	for _, pp := range p.Protected {
		if policy.Within(c, pp) && len(pp) >= best {
			best, rw = len(pp), false
		}
	}
	return rw
}

// NSNeed is one part of a tool's policy that only the namespaced path
// (exec on Linux with unprivileged user namespaces) enforces exactly. The
// launcher takes that path exactly when a manifest has at least one; with
// none, Landlock and seccomp alone are exact and exec stays on the fast
// path.
type NSNeed struct {
	// ID names the need: "ns.masks", "ns.readonly", "ns.protected",
	// "ns.net" (this package), "ns.unix" (the launcher, at exec time).
	ID string `json:"id"`
	// What is the part of the policy, with its paths or rules.
	What string `json:"what"`
	// Exact is how the namespaced path enforces it.
	Exact string `json:"exact"`
	// Without is what it becomes on Landlock and seccomp alone.
	Without string `json:"without"`
	// Weaker is set when Without enforces less than the policy promises:
	// exec then refuses to fall back unless --best-effort. Otherwise the
	// fallback is stricter than the policy (some permitted actions fail)
	// and runs.
	Weaker bool `json:"weaker"`
}

// NamespaceNeeds lists the parts of m that need the namespaced path to be
// exact, in a stable order. It reads only the manifest, so the launcher,
// explain and the dry run agree with what compile wrote.
func NamespaceNeeds(m *Manifest) []NSNeed {
	var out []NSNeed
	ns := m.Namespace
	if ns == nil {
		return nil
	}
	if len(ns.Masks) > 0 {
		out = append(out, NSNeed{
			ID:      "ns.masks",
			What:    "narrowed paths " + strings.Join(ns.Masks, ", "),
			Exact:   "hidden exactly: an empty read-only mount over each, a placeholder for one that does not exist yet, so it cannot be created; the rest of the directory keeps its full rights",
			Without: "the Landlock split (the fs clauses say where): entries created later directly in a split directory get only the narrower rights, so some writes the policy allows fail",
		})
	}
	var ro []string
	for _, b := range ns.Binds {
		if !b.RW && writableAbove(ns.Binds, b.Path) {
			ro = append(ro, b.Path)
		}
	}
	if len(ro) > 0 {
		out = append(out, NSNeed{
			ID:      "ns.readonly",
			What:    "read-only rules inside writable ones: " + strings.Join(ro, ", "),
			Exact:   "read-only binds: writes and metadata writes there fail with EROFS, beside them the write grant is whole",
			Without: "the Landlock split: entries created later directly in a split directory get only the narrower rights, so some writes the policy allows fail",
		})
	}
	if len(ns.Protected) > 0 {
		n := NSNeed{
			ID:      "ns.protected",
			What:    "protected paths inside writable roots: " + strings.Join(ns.Protected, ", "),
			Exact:   "read-only binds (and every directory above them a mount point, so they cannot be moved away): the git directory (hooks, config, commondir) and JP's own config cannot be written",
			Without: "writable like the rest of the root: the tool could plant a git hook that runs unsandboxed on the next commit, or rewrite its own policy",
			Weaker:  true,
		}
		if slices.ContainsFunc(ns.Protected, func(p string) bool { return !slices.Contains(ProtectedNames, filepath.Base(p)) }) {
			// emit.Tool.Protected reached: say what those are.
			n.Exact = "read-only binds (and every directory above them a mount point, so they cannot be moved away): the git directory (hooks, config, commondir), JP's own config, jp-policy's pins and the start-up files of a mounted home (shell, git, ssh) cannot be written"
			n.Without = "the workspace's .git, .jp and .jp.toml writable like the rest of the root: the tool could plant a git hook that runs unsandboxed on the next commit, or rewrite its own policy (the start-up files, JP's user config and jp-policy's pins stay read-only through the Landlock split, fs.protected)"
		}
		out = append(out, n)
	}
	if len(m.Net.ConnectTCP) > 0 && len(m.Net.BindTCP) == 0 {
		out = append(out, NSNeed{
			ID:      "ns.net",
			What:    "net rules with hosts, schemes and paths",
			Exact:   "a private network namespace where only what the rules grant is reachable: the filtering proxy (HTTP_PROXY) and, for clients that ignore it, a resolver answering only granted names and a listener per granted host:port; every connection is decided by host, scheme, port, TLS server name and (plain http) path, and UDP reaches only the resolver. Degraded there: the path over TLS (a path_prefix rule never allows it), the scheme of other protocols (taken from the port), IP literals other than loopback IPv4 (through the proxy only)",
			Without: "Landlock filters TCP ports only: any host on an allowed port, and UDP (DNS included) to any address",
			Weaker:  true,
		})
	}
	return out
}

// writableAbove reports whether the nearest bind strictly above p is
// writable.
func writableAbove(binds []NSBind, p string) bool {
	best, rw := -1, false
	for _, b := range binds {
		if b.Path != p && policy.Within(p, b.Path) && len(b.Path) > best {
			best, rw = len(b.Path), b.RW
		}
	}
	return rw
}

// NeedClauses describes each need as a manifest clause, so explain and the
// manifests say what namespaces make exact and what the clause becomes
// without them. Their status is the namespaced path's; the launcher
// reports a fallback's on the machine it runs on.
func NeedClauses(needs []NSNeed) []plan.Clause {
	var out []plan.Clause
	for _, n := range needs {
		without := "stricter than the policy, so it runs"
		if n.Weaker {
			without = "weaker than the policy, so exec refuses it unless --best-effort"
		}
		out = append(out, plan.Clause{
			ID: n.ID, What: n.What, Status: plan.Enforced,
			How: fmt.Sprintf("exact on the namespaced path, which exec takes for it: %s; without user namespaces (or with --no-namespaces): %s, %s", n.Exact, n.Without, without),
		})
	}
	return out
}
