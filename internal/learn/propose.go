package learn

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// DefaultCollapse is how many rule paths below one directory make the
// proposal grant the directory instead: a build that reads a few hundred
// sources under src/ gets one rule on src, a script that reads two files
// gets two.
const DefaultCollapse = 16

// Context is what Propose needs to know about where the run happened.
type Context struct {
	// Root is the canonical absolute workspace root.
	Root string
	// Home is the canonical home directory, for `~` in mount commands
	// and to group paths under it; "" when unknown.
	Home string
	// Scratch lists canonical directories exec gives every run on its own
	// (the run's TMPDIR, /tmp, /dev/shm) and kernel trees no rule
	// governs (/proc, /sys, /dev): nothing is proposed for them.
	Scratch []string
	// Baseline reports whether exec's system baseline allows op on the
	// canonical absolute path p already; nil allows nothing.
	Baseline func(p string, op Op) bool
	// Collapse is the DefaultCollapse override; 0 means the default.
	Collapse int
	// Protect lists workspace paths that must stay read-only where the
	// proposal lets the run write around them (.jp, .jp.toml layers,
	// .git/hooks, .git/config: lint JP116's points).
	Protect []string
	// Guarded lists paths outside the workspace that exec keeps
	// read-only for every tool (canonical, with why: jpdirs'
	// ProtectedPaths). exec --denials proposes no mount that lets a tool
	// write one: the refused path is the tool's choice, and the hint
	// would ask the user to hand it persistence or its own policy.
	Guarded []Guarded
	// Secret lists paths outside the workspace that hold secrets (lint's
	// sensitive paths, canonical): exec --denials proposes no mount that
	// reaches one, for any access.
	Secret []string
	// Existing are the tool's fs rules already in its config (workspace
	// rules, lexical paths), which the proposal is appended after: it
	// must widen them, never narrow one by naming its path again.
	Existing []policy.FsRule
	// NetDeclared is set when the tool's config already has net rules,
	// so its list is non-empty without the proposal's deny-all rule.
	NetDeclared bool
}

// Guarded is one protected path and why it is.
type Guarded struct {
	Path, Why string
}

// state reports whether p is gone, or a directory, now.
func (ctx Context) state(p string) (gone, dir bool) {
	fi, err := os.Lstat(p)
	if err != nil {
		return true, false
	}
	return false, fi.IsDir()
}

// Rule is one proposed fs rule: Path is workspace-relative and
// slash-separated ("" is the workspace root), Op what it grants.
type Rule struct {
	Path string
	Op   Op
	// Beside lists lint JP116's points directly in this directory that
	// the rule can create or delete and that cannot get a read-only rule
	// of their own: on the directory itself Landlock would then withhold
	// the create and delete the run needed. exec keeps them read-only
	// (a read-only bind on the namespaced path, which such a grant takes).
	Beside []string
}

// Mount is one path outside the workspace the run used, as the
// `jp-policy mount` that would grant it (RFD D43: an external path is
// granted by a mount, never by an absolute rule).
type Mount struct {
	Target string // canonical absolute target
	Name   string // the symlink's name in the workspace
	Mode   string // ro, rx or rw
	// System is set for a target outside the home directory that the
	// run only read (/etc/locale.alias): programs probe such files and
	// go on without them, so a mount may not be needed.
	System bool
}

// Net is one proposed net rule.
type Net struct {
	Host   string
	Port   uint16
	Scheme string // "" when the port does not tell
}

// Proposal is the least access that lets the observed run succeed.
type Proposal struct {
	FS     []Rule
	Mounts []Mount
	Net    []Net
	// Unix lists Unix-domain sockets the run connected to, which no rule
	// grants.
	Unix []string
	// NetDeclared is Context.NetDeclared.
	NetDeclared bool
}

// requirement is one capability set the run needed on one path.
type requirement struct {
	path string
	op   Op
	gone bool // the path no longer exists
	dir  bool // the path is a directory now
}

// Propose turns observations into the least rules that allow every one
// of them, and checks the result with package policy: a proposal that
// would refuse one observed access is an error, never returned.
func Propose(obs Observations, ctx Context) (*Proposal, error) {
	if ctx.Collapse <= 0 {
		ctx.Collapse = DefaultCollapse
	}
	var reqs []requirement // what the run did, workspace-relative
	external := map[string]Op{}
	for _, fa := range obs.Files {
		if fa.Path == "" || !filepath.IsAbs(fa.Path) || fa.Op == 0 {
			continue
		}
		p := filepath.Clean(fa.Path)
		if rel, ok := within(ctx.Root, p); ok {
			if jpOwn(rel) {
				continue
			}
			gone, dir := ctx.state(p)
			op := fa.Op
			if op&OpCreate != 0 && !gone && !dir && inRepoOrJP(rel) {
				// O_CREAT on a file that is there (`>> .git/config`)
				// counts as a create so that a run from a clean state
				// finds its outputs creatable, which grants create on the
				// directory. In a repository's git directory or JP's own
				// that directory is one exec keeps read-only as a whole
				// (git takes config and hooks from a commondir created
				// beside them), and such a file is no output: the run
				// wrote it, and gets that (attack_learn_create_git).
				op = op&^OpCreate | OpUpdate
			}
			reqs = append(reqs, requirement{path: rel, op: op, gone: gone, dir: dir})
			continue
		}
		// The home's caches are the user's even where the home lies under
		// /tmp (a CI runner, a test): exec gives the tool a scratch HOME,
		// so they need a mount like any other.
		_, inHome := within(ctx.Home, p)
		inHome = inHome && ctx.Home != ""
		if (!inHome && underAny(p, ctx.Scratch)) || (ctx.Baseline != nil && ctx.Baseline(p, fa.Op)) {
			continue
		}
		external[p] |= fa.Op
	}
	fs, err := widenOver(ctx.Root, ctx.Existing, proposeFS(reqs, ctx.Collapse, ctx.Protect), reqs)
	if err != nil {
		return nil, err
	}
	p := &Proposal{
		NetDeclared: ctx.NetDeclared,
		FS:          fs,
		Mounts:      proposeMounts(external, ctx),
		Net:         proposeNet(obs.Connects),
	}
	p.Unix = slices.Compact(slices.Sorted(slices.Values(obs.Unix)))
	if err := verify(ctx.Root, append(slices.Clone(ctx.Existing), WireRules(p.FS)...), reqs); err != nil {
		return nil, err
	}
	return p, nil
}

// widenOver makes fs, appended after the tool's existing rules, widen
// them and never narrow: a proposed rule governs its path's subtree from
// then on (RFD 076: the longest path wins, and the later of two rules on
// one path), so it keeps what the rule that governed that path before
// granted; and where a more specific existing rule still refuses an
// observed access, the proposal adds a rule on that rule's path granting
// what it granted and what the run needed there. A second `learn --write`
// for the same tool therefore adds to the first instead of undoing it.
func widenOver(root string, existing []policy.FsRule, fs []Rule, reqs []requirement) ([]Rule, error) {
	if len(existing) == 0 {
		return fs, nil
	}
	at := func(path string) int {
		return slices.IndexFunc(fs, func(r Rule) bool { return r.Path == path })
	}
	before, err := policy.NewChecker(root, &policy.AccessPolicy{FS: existing})
	if err != nil {
		return nil, fmt.Errorf("the tool's rules do not load: %w", err)
	}
	for i := range fs {
		if w, ok := before.CheckFS(policy.Read, cmp.Or(fs[i].Path, ".")).Rule.(policy.FsRule); ok {
			fs[i].Op |= opOfRule(w)
		}
	}
	// Each round widens at least one rule of a bounded set (the existing
	// rules' paths and the requirements'), so this ends.
	for range len(existing) + len(reqs) + 1 {
		c, err := policy.NewChecker(root, &policy.AccessPolicy{FS: append(slices.Clone(existing), WireRules(fs)...)})
		if err != nil {
			return nil, fmt.Errorf("the proposed rules do not load: %w", err)
		}
		widened := false
		for _, r := range reqs {
			in := cmp.Or(r.path, ".")
			for _, cp := range r.op.Capabilities() {
				d := c.CheckFS(cp, in)
				if d.Allowed {
					continue
				}
				w, ok := d.Rule.(policy.FsRule)
				if !ok {
					continue // no rule governs it: verify reports the proposal's own gap
				}
				need := opOfRule(w) | r.op
				if i := at(w.LexicalPath); i >= 0 {
					if fs[i].Op|need != fs[i].Op {
						fs[i].Op |= need
						widened = true
					}
				} else {
					fs = append(fs, Rule{Path: w.LexicalPath, Op: need})
					widened = true
				}
			}
		}
		if !widened {
			break
		}
	}
	slices.SortFunc(fs, func(a, b Rule) int { return strings.Compare(a.Path, b.Path) })
	return fs, nil
}

// proposeFS chooses rule paths and capabilities for reqs.
//
// Creating and deleting an entry is a change to its directory: Landlock
// grants both on the directory, where they reach every entry, so a
// create or delete of p is granted on p's parent (a name the run made
// and removed, like sed -i's temporary file, cannot be predicted anyway).
// Every other capability is granted on the path itself. Rules are
// self-contained under longest-prefix match (RFD 076), so each rule gets
// every capability of the requirements it wins.
func proposeFS(reqs []requirement, collapse int, protect []string) []Rule {
	if len(reqs) == 0 {
		return nil
	}
	all := make([]requirement, 0, 2*len(reqs))
	set := map[string]bool{}
	// isDir: the path is a directory now, or lies above one the run
	// used (a parent a create or delete is granted on).
	isDir := map[string]bool{"": true}
	for _, r := range reqs {
		if r.dir {
			isDir[r.path] = true
		}
		for d := r.path; d != ""; {
			d = parentOf(d)
			isDir[d] = true
		}
	}
	for _, r := range reqs {
		all = append(all, r)
		if r.path != "" && (r.gone || (r.op&OpCreate != 0 && !r.dir)) {
			// Gone by the end of the run (a temporary file, a name
			// renamed away), or a file the run created (an output):
			// compile binds a rule to the file that exists then, exec
			// refuses to start once a rule's file is gone, and the next
			// build removes and creates such a file again. So its
			// directory is granted instead: build into a directory of
			// its own (out/, target/) to keep that grant narrow.
			parent := parentOf(r.path)
			all = append(all, requirement{path: parent, op: r.op})
			set[parent] = true
			continue
		}
		if own := r.op &^ (OpCreate | OpDelete); own != 0 {
			set[r.path] = true
		}
		if dirOps := r.op & (OpCreate | OpDelete); dirOps != 0 && r.path != "" {
			parent := parentOf(r.path)
			all = append(all, requirement{path: parent, op: dirOps})
			set[parent] = true
		}
	}
	collapseRules(set, collapse)
	caps := map[string]Op{}
	for _, r := range all {
		w, ok := longestPrefix(set, r.path)
		if !ok {
			// A create or delete of p whose parent was folded away
			// into a rule further up still wins there; nothing is
			// left without a rule, but be safe.
			w = ""
			set[""] = true
		}
		caps[w] |= r.op
	}
	// A narrower rule exists here only to add capabilities, never to
	// take one away: it gets every capability of the rules above it.
	// Otherwise the rule above would lose on its own directory what the
	// narrower one lacks (Landlock's rights are inherited, so compile
	// withholds them there: docs/enforcement.md, "split around narrower
	// rules"), and listing or creating in that directory would fail
	// under exec although policy allows it.
	paths := slices.Collect(maps.Keys(caps))
	slices.SortFunc(paths, func(a, b string) int {
		if da, db := depth(a), depth(b); da != db {
			return da - db
		}
		return strings.Compare(a, b)
	})
	// Create and delete are granted on directories only (on a file they
	// would reach its siblings), so a file rule takes the rest.
	inherit := func(p string, up Op) Op {
		if !isDir[p] {
			return up &^ (OpCreate | OpDelete)
		}
		return up
	}
	for _, p := range paths {
		if p == "" {
			continue
		}
		if up, ok := longestPrefix(set, parentOf(p)); ok {
			caps[p] |= inherit(p, caps[up])
		}
	}
	// A rule that grants nothing the rule above it does not adds
	// nothing: the paths below it are allowed there just the same.
	for _, p := range slices.Backward(paths) {
		if p == "" {
			continue
		}
		if up, ok := longestPrefix(set, parentOf(p)); ok && caps[p]&^caps[up] == 0 {
			delete(caps, p)
			delete(set, p)
		}
	}
	// JP's own files and git's code-running ones stay read-only where the
	// proposal lets the run write around them (lint JP116's points): a
	// read-only rule on each, unless the run needed to create or delete
	// in the directory that holds it, where such a rule would withhold
	// create and delete on that directory itself (Landlock's split) and
	// break the run. exec keeps them read-only either way; JP116 then
	// names the rule.
	uncovered := map[string][]string{}
	for _, q := range protect {
		if slices.ContainsFunc(reqs, func(r requirement) bool { return r.path == q || isUnder(r.path, q) }) {
			continue // the run used it: what it needed stands, and JP116 says so
		}
		w, ok := longestPrefix(set, q)
		if !ok || caps[w]&(OpCreate|OpUpdate|OpDelete) == 0 || w == q {
			continue
		}
		if caps[w]&(OpCreate|OpDelete) != 0 && parentOf(q) == w {
			uncovered[w] = append(uncovered[w], q)
			continue
		}
		caps[q] = caps[w] &^ (OpCreate | OpUpdate | OpDelete)
		set[q] = true
	}
	rules := make([]Rule, 0, len(caps))
	for path, op := range caps {
		rules = append(rules, Rule{Path: path, Op: op, Beside: uncovered[path]})
	}
	slices.SortFunc(rules, func(a, b Rule) int { return strings.Compare(a.Path, b.Path) })
	return rules
}

// collapseRules replaces the rule paths below a directory by the
// directory once there are at least n of them, deepest directories
// first, never above the workspace root.
func collapseRules(set map[string]bool, n int) {
	dirs := map[string]bool{}
	for p := range set {
		for d := p; d != ""; {
			d = parentOf(d)
			dirs[d] = true
		}
	}
	order := slices.Collect(maps.Keys(dirs))
	slices.SortFunc(order, func(a, b string) int {
		if da, db := depth(a), depth(b); da != db {
			return db - da
		}
		return strings.Compare(a, b)
	})
	for _, d := range order {
		var below []string
		for p := range set {
			if p != d && isUnder(p, d) {
				below = append(below, p)
			}
		}
		if len(below) >= n {
			for _, p := range below {
				delete(set, p)
			}
			set[d] = true
		}
	}
}

// longestPrefix is the rule path in set that wins p (p itself or its
// nearest ancestor).
func longestPrefix(set map[string]bool, p string) (string, bool) {
	for {
		if set[p] {
			return p, true
		}
		if p == "" {
			return "", false
		}
		p = parentOf(p)
	}
}

// verify asks policy, the one evaluator, whether rules (the tool's
// existing rules followed by the proposal's) allow every requirement.
func verify(root string, rules []policy.FsRule, reqs []requirement) error {
	if len(reqs) == 0 {
		return nil
	}
	ap := &policy.AccessPolicy{FS: rules}
	c, err := policy.NewChecker(root, ap)
	if err != nil {
		return fmt.Errorf("the proposed rules do not load: %w", err)
	}
	for _, r := range reqs {
		in := r.path
		if in == "" {
			in = "."
		}
		for _, cp := range r.op.Capabilities() {
			if d := c.CheckFS(cp, in); !d.Allowed {
				return fmt.Errorf("internal error: the proposal does not allow %s on %s: %v", cp, in, d.Err)
			}
		}
	}
	return nil
}

// opCaps pairs each Op bit with policy's capability.
var opCaps = []struct {
	op Op
	cp policy.Capability
}{{OpRead, policy.Read}, {OpCreate, policy.Create}, {OpUpdate, policy.Update}, {OpDelete, policy.Delete}, {OpExecute, policy.Execute}}

// Capabilities lists op as policy's capabilities.
func (op Op) Capabilities() []policy.Capability {
	var out []policy.Capability
	for _, m := range opCaps {
		if op&m.op != 0 {
			out = append(out, m.cp)
		}
	}
	return out
}

// opOfRule is what r grants, as an Op.
func opOfRule(r policy.FsRule) Op {
	var op Op
	for _, m := range opCaps {
		if r.Grants(m.cp) {
			op |= m.op
		}
	}
	return op
}

// WireRules is rules in policy's wire form, every capability written
// (a rule is self-contained: what it does not grant is false).
func WireRules(rules []Rule) []policy.FsRule {
	out := make([]policy.FsRule, 0, len(rules))
	for _, r := range rules {
		b := func(o Op) *bool { v := r.Op&o != 0; return &v }
		out = append(out, policy.FsRule{
			LexicalPath: r.Path,
			Read:        b(OpRead),
			Create:      b(OpCreate),
			Update:      b(OpUpdate),
			Delete:      b(OpDelete),
			Execute:     b(OpExecute),
		})
	}
	return out
}

// proposeMounts groups paths outside the workspace into the mounts that
// would grant them: a directory directly under the home directory
// (~/.npm, ~/go), or the one under ~/.cache, ~/.config or
// ~/.local/{share,state,lib} (~/.cache/pip); elsewhere the first two
// components (/opt/tool). The mode is rw when anything was written
// below, rx when something was executed, ro otherwise.
func proposeMounts(external map[string]Op, ctx Context) []Mount {
	groups := map[string]Op{}
	for p, op := range external {
		groups[mountRoot(p, ctx.Home, ctx.Root)] |= op
	}
	var out []Mount
	names := map[string]int{}
	targets := slices.Sorted(maps.Keys(groups))
	for _, t := range targets {
		op := groups[t]
		mode := "ro"
		switch {
		case op&(OpCreate|OpUpdate|OpDelete) != 0:
			mode = "rw"
		case op&OpExecute != 0:
			mode = "rx"
		}
		name := mountName(t)
		names[name]++
		if k := names[name]; k > 1 {
			name = fmt.Sprintf("%s-%d", name, k)
		}
		_, inHome := within(ctx.Home, t)
		out = append(out, Mount{Target: t, Name: name, Mode: mode, System: mode == "ro" && !(ctx.Home != "" && inHome)})
	}
	return out
}

func mountRoot(p, home, root string) string {
	base, rel, n := "/", strings.TrimPrefix(p, "/"), 2
	if home != "" {
		if r, ok := within(home, p); ok && r != "" {
			base, rel, n = home, r, 1
			parts := strings.Split(r, "/")
			switch parts[0] {
			case ".cache", ".config":
				n = 2
			case ".local":
				n = 2
				if len(parts) > 1 && (parts[1] == "share" || parts[1] == "state" || parts[1] == "lib") {
					n = 3
				}
			}
		}
	}
	parts := strings.Split(rel, "/")
	if base == "/" {
		// Outside the home, a cache or config directory anywhere (a
		// GOCACHE in another user's home, /srv/ci/.cache/pip) is grouped
		// as under the home: the directory one level below it.
		for i := len(parts) - 2; i >= 0; i-- {
			if parts[i] == ".cache" || parts[i] == ".config" {
				n = i + 2
				break
			}
		}
	}
	// A mount may not hold the workspace: go one level deeper while the
	// candidate is the workspace or above it (~/code for a workspace in
	// ~/code/project and a path in ~/code/other).
	for {
		n = min(n, len(parts))
		t := filepath.Join(base, filepath.FromSlash(strings.Join(parts[:n], "/")))
		if _, above := within(t, root); !above || n == len(parts) {
			return t
		}
		n++
	}
}

// mountName is a symlink name for target: its last element without
// leading dots, in the characters a mount name may use.
func mountName(target string) string {
	b := strings.TrimLeft(filepath.Base(target), ".")
	var s strings.Builder
	for _, r := range b {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			s.WriteRune(r)
		default:
			s.WriteByte('-')
		}
	}
	if s.Len() == 0 {
		return "external"
	}
	return s.String()
}

// proposeNet is one rule per endpoint, named as the command asked for it
// where the tracer saw the name, with the scheme its port implies.
func proposeNet(cs []Connect) []Net {
	seen := map[Net]bool{}
	var out []Net
	for _, c := range cs {
		host := c.Name
		if host == "" {
			host = c.Addr
		}
		n := Net{Host: host, Port: c.Port}
		switch c.Port {
		case 443:
			n.Scheme = "https"
		case 80:
			n.Scheme = "http"
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b Net) int {
		if c := strings.Compare(a.Host, b.Host); c != 0 {
			return c
		}
		return int(a.Port) - int(b.Port)
	})
	return out
}

// within reports whether p is root or below it, and p relative to root
// (slash-separated, "" for root itself).
func within(root, p string) (string, bool) {
	if p == root {
		return "", true
	}
	prefix := root
	if !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	if strings.HasPrefix(p, prefix) {
		return filepath.ToSlash(p[len(prefix):]), true
	}
	return "", false
}

func underAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if _, ok := within(d, p); ok && d != "" {
			return true
		}
	}
	return false
}

// jpOwn reports JP's own config and storage in the workspace, which no
// tool is granted (exec protects them whatever the rules say).
func jpOwn(rel string) bool {
	first, _, _ := strings.Cut(rel, "/")
	return first == ".jp" || (rel == first && strings.HasPrefix(first, ".jp."))
}

func parentOf(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return ""
	}
	return p[:i]
}

func depth(p string) int {
	if p == "" {
		return 0
	}
	return strings.Count(p, "/") + 1
}

func isUnder(p, d string) bool {
	if d == "" {
		return p != ""
	}
	return strings.HasPrefix(p, d+"/")
}

// inRepoOrJP tells whether workspace-relative path rel lies in a `.git`
// or `.jp` directory (exec's ProtectedNames, at any depth).
func inRepoOrJP(rel string) bool {
	parts := strings.Split(rel, "/")
	for _, c := range parts[:len(parts)-1] {
		if c == ".git" || c == ".jp" {
			return true
		}
	}
	return false
}
