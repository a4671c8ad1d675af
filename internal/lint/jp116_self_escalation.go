package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/jpdirs"
	"github.com/jp-policy/jp-policy/internal/policy"
)

var ruleJP116 = Rule{
	ID: "JP116", Name: "self-escalation", Severity: diag.Warning, Suppressible: true,
	Title: "A tool may write JP's policy files, JP's user config or approvals, jp-policy's pins, git hooks/config, or start-up files in your home",
	Description: "A tool that can create, update or delete `.jp/` or a `.jp.toml` in the workspace, or (through an external mount) JP's user config directory or the workspace's user storage that holds approvals.json, " +
		"can rewrite its own access policy for its next run; RFD 078 treats `conversation.tools.*.access` as sensitive for the same reason. " +
		"Through an external mount (or in a workspace that holds the home directory), jp-policy's pins and verify caches (`<user data dir>/jp-policy`) are reported too (a forged pin makes the next exec trust an artifact the tool wrote), " +
		"and the files that run code as you outside any sandbox: shell start-up files (`~/.bashrc`, `~/.profile`, `~/.zshrc`, ..., zsh's in `$ZDOTDIR`), what they run or put on PATH (`~/.bash_aliases`, `~/.bashrc.d`, `~/.local/bin`, `~/bin`, the X session scripts), `~/.gitconfig`, `~/.ssh`, fish's, git's, systemd's, autostart's, environment.d's and plasma-workspace's directories under `~/.config`, and systemd's and bash-completion's under `~/.local/share`. " +
		"A protected file with more than one hard link is named with its link count: exec keeps one name read-only, and a write through another name changes the same file. " +
		"exec keeps every one of these read-only (the Landlock split on both exec paths, a read-only bind on the namespaced one) unless a rule names it exactly; a rule that names it is what this warning is for. " +
		"Write access to `.git/hooks` or `.git/config` is reported too: both run code as you on your next git command. The rule that decides the path is named, so a more specific read-only rule silences the warning.",
	Fix:   "Add a more specific rule for `.jp` (and `.git`) that grants no create, update or delete, or narrow the rule.",
	check: checkSelfEscalation,
}

// protectedDir is a directory outside the workspace that holds JP's own
// policy inputs.
type protectedDir struct {
	abs  string
	what string
}

// protectedDirs lists the paths outside the workspace a tool must not
// write (jpdirs.ProtectedPaths, the list compile protects on exec's
// namespaced path) and the approvals store, canonical where they exist.
func protectedDirs(l *config.Loaded, opts Options) []protectedDir {
	var out []protectedDir
	add := func(abs, what string) {
		// Canonical, to compare with canonical targets; a dangling dotfile
		// link adds the file it would create (policy's WriteTargets, as
		// compile protects).
		for _, t := range opts.Disk.WriteTargets(abs) {
			out = append(out, protectedDir{abs: t, what: what})
		}
	}
	for _, p := range jpdirs.ProtectedPaths(l.Root, opts.Getenv) {
		add(p.Path, p.What)
	}
	// The config files read outside the workspace (an extends target
	// beside it), which compile protects with the rest.
	// (One inside a protected directory, such as JP's user config, is
	// reported as that directory.)
	for _, path := range l.PolicyFiles() {
		if _, in := relUnder(l.Root, path); in || slices.ContainsFunc(out, func(d protectedDir) bool { return policy.Within(path, d.abs) }) {
			continue
		}
		add(path, jpdirs.SelfEscalation("a JP config file"))
	}
	if opts.ApprovalsFile != "" {
		// Absolute first, as compile protects it: a relative path never
		// matches a canonical target.
		if a, err := filepath.Abs(opts.ApprovalsFile); err == nil {
			add(a, jpdirs.SelfEscalation("the approvals store"))
		}
	}
	return out
}

// hardLinkNote warns about a protected file that has other hard links:
// exec's read-only bind and Landlock rule hold one name, and a write
// through another name in a writable grant (~/dotfiles/bashrc linked to
// ~/.bashrc by the user) changes the same file. The tool cannot make such
// a link itself (Landlock's refer check and the bind's mount both refuse
// it), and the other names cannot be found without walking every grant,
// so lint names the file and the fix: a symlink, whose target compile
// protects too.
func hardLinkNote(p string) string {
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	if n := linkCount(fi); n > 1 {
		return fmt.Sprintf("; %s has %d hard links, and a write through another of its names is not kept read-only: make the other name a symlink to it", filepath.Base(p), n)
	}
	return ""
}

type escalation struct {
	key  string // workspace key, "" for a protected dir outside
	what string
}

// workspacePoints are the workspace paths a tool must not write.
func workspacePoints(l *config.Loaded) []escalation {
	pts := []escalation{
		{".jp", jpdirs.SelfEscalation("JP's workspace config and compiled policy")},
		{".jp.toml", jpdirs.SelfEscalation("a JP config file")},
	}
	seen := map[string]bool{".jp.toml": true}
	// Every config file read inside the workspace (a .jp.toml, a file
	// the config extends): what exec keeps read-only (PolicyFiles).
	for _, path := range l.PolicyFiles() {
		if rel, ok := relUnder(l.Root, path); ok && rel != "" && !seen[rel] && rel != ".jp" && !strings.HasPrefix(rel, ".jp/") {
			seen[rel] = true
			pts = append(pts, escalation{rel, jpdirs.SelfEscalation("a JP config file")})
		}
	}
	if fi, err := os.Stat(filepath.Join(l.Root, ".git")); err == nil && fi.IsDir() {
		pts = append(pts,
			escalation{".git/hooks", "git hooks, which run as you on your next git command"},
			escalation{".git/config", "git config, which can make your next git command run programs as you (core.hooksPath, aliases, filters)"})
	}
	return pts
}

func checkSelfEscalation(p *pass) {
	if len(p.st.tools) == 0 {
		return
	}
	if p.st.protected == nil {
		p.st.protected = protectedDirs(p.l, p.opts)
	}
	points := workspacePoints(p.l)
	// An ordinary rule governs a path in the workspace: only a protected
	// path in it (a workspace that holds the home directory) or above it
	// can meet one. Deciding that once spares the per-rule comparisons of
	// every tool in the common case (none).
	nearRoot := make([]bool, len(p.st.protected))
	for i, d := range p.st.protected {
		_, in := relUnder(p.l.Root, d.abs)
		_, above := relUnder(d.abs, p.l.Root)
		nearRoot[i] = in || above
	}
	for _, tf := range p.st.tools {
		type hitKey struct {
			idx  int
			what string
		}
		type hit struct {
			rule  *boundRule
			shown []string // the paths, in the order found
		}
		hits := map[hitKey]*hit{}
		add := func(w *boundRule, shown, what string) {
			if w == nil || !w.grantsWrite() {
				return
			}
			k := hitKey{w.index, what}
			h := hits[k]
			if h == nil {
				h = &hit{rule: w}
				hits[k] = h
			}
			// One finding per rule and kind of path: the shell
			// start-up files are named together.
			if !slices.Contains(h.shown, shown) {
				h.shown = append(h.shown, shown)
			}
		}
		for _, pt := range points {
			add(tf.winner(pt.key), pt.key, pt.what)
			for _, b := range tf.rules {
				if b.err != nil || b.external {
					continue
				}
				if rel, ok := relUnderKey(pt.key, b.key); ok && rel != "" {
					add(b, b.key, pt.what)
				}
			}
		}
		for i, d := range p.st.protected {
			// Ordinary rules too: a workspace that holds the home
			// directory reaches its start-up files without a mount.
			for _, b := range tf.rules {
				if b.err != nil || !b.external && !nearRoot[i] {
					continue
				}
				// The hard-link note is looked up only for a path a rule
				// reaches: an lstat per protected path on every lint cost
				// more than the rest of the rule.
				if _, ok := relUnder(d.abs, b.abs); ok {
					add(b, p.st.show(b.abs), d.what+hardLinkNote(d.abs))
				} else if rel, ok := relUnder(b.abs, d.abs); ok {
					add(tf.winner(joinKey(b.key, rel)), p.st.show(d.abs), d.what+hardLinkNote(d.abs))
				}
			}
		}
		keys := make([]hitKey, 0, len(hits))
		for k := range hits {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if keys[i].idx != keys[j].idx {
				return keys[i].idx < keys[j].idx
			}
			return keys[i].what < keys[j].what
		})
		for _, k := range keys {
			h := hits[k]
			p.report(p.valueOf(h.rule.rule.Keys, "path", h.rule.rule.Pos),
				fmt.Sprintf("tool %q can %s %s through fs rule %q: %s",
					tf.tool.Name, writeCaps(h.rule), strings.Join(h.shown, ", "), h.rule.rule.Path, k.what),
				"add a more specific rule for that path without create, update or delete")
		}
	}
}

// writeCaps lists the write capabilities a rule grants.
func writeCaps(b *boundRule) string {
	var cs []string
	for _, c := range []policy.Capability{policy.Create, policy.Update, policy.Delete} {
		if b.grants(c) {
			cs = append(cs, c.String())
		}
	}
	return strings.Join(cs, ", ")
}

// relUnderKey is relUnder for slash-separated workspace keys, where ""
// is the root.
func relUnderKey(dir, key string) (string, bool) {
	switch {
	case dir == "":
		return key, true
	case key == dir:
		return "", true
	case len(key) > len(dir) && key[:len(dir)] == dir && key[len(dir)] == '/':
		return key[len(dir)+1:], true
	}
	return "", false
}

// WorkspacePoints are the workspace-relative paths JP116 reports a write
// grant on (JP's own config, the .jp.toml layers, git's hooks and
// config), for `jp-policy learn`, which keeps its proposals off them.
func WorkspacePoints(l *config.Loaded) []string {
	var out []string
	for _, e := range workspacePoints(l) {
		out = append(out, e.key)
	}
	return out
}
