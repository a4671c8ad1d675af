package lint

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// boundRule is one fs rule of a tool after binding it to this machine.
type boundRule struct {
	index int // position in the tool's merged access.fs
	rule  *config.FsRule
	// key is what the rule matches on: the canonical workspace-relative
	// path of an ordinary rule, the lexical path (the symlink) of an
	// external one.
	key string
	// abs is the canonical absolute path the rule governs: root/key for
	// ordinary rules, the link's current target for external ones.
	abs      string
	external bool
	err      *policy.RuleError // why the rule could not be bound; nil if bound
}

// grants reports whether the rule as written grants capability c.
func (b *boundRule) grants(c policy.Capability) bool {
	r := policy.FsRule{Read: b.rule.Read, Write: b.rule.Write, Create: b.rule.Create,
		Update: b.rule.Update, Delete: b.rule.Delete, Execute: b.rule.Execute}
	return r.Grants(c)
}

// grantsAny reports whether the rule grants at least one capability.
func (b *boundRule) grantsAny() bool {
	return slices.ContainsFunc(policy.Capabilities, b.grants)
}

// grantsWrite reports whether the rule may create, update or delete.
func (b *boundRule) grantsWrite() bool {
	return b.grants(policy.Create) || b.grants(policy.Update) || b.grants(policy.Delete)
}

// toolFS is a tool's fs rules bound, with a checker over the bound ones
// to ask which rule wins at a path (longest prefix, ties to the last).
type toolFS struct {
	tool    *config.Tool
	rules   []*boundRule
	checker *policy.Checker
	byIdx   []*boundRule // checker rule index -> bound rule
}

// winner returns the rule that decides key (a workspace-relative lexical
// path), or nil when no declared rule matches.
func (t *toolFS) winner(key string) *boundRule {
	if t.checker == nil {
		return nil
	}
	idx, _ := t.checker.DecideFS(policy.Read, key)
	if idx < 0 || idx >= len(t.byIdx) {
		return nil
	}
	return t.byIdx[idx]
}

// state is computed once per Run and shared by the rules.
type state struct {
	root string
	home string
	// sorted is every merged tool in name order (sortedTools), computed
	// once for all rules.
	sorted []*config.Tool
	tools  []*toolFS // tools with at least one fs rule, by name
	ws     *wsIndex  // lazily built index of the workspace's files
	trees  map[string]*wsIndex
	// matches caches, per tree and glob entry, the matching files.
	matches map[matchKey][]string
	// sensitive is the built-in sensitive path list plus every
	// `sensitive_paths` entry of the config.
	sensitive []sensitivePath
	// protected are JP's user-level directories a tool must not write:
	// the global config directory and the workspace's user storage (which
	// holds the approvals store).
	protected []protectedDir
}

func newState(l *config.Loaded, opts Options) *state {
	st := &state{root: l.Root, home: opts.Home, sorted: sortedTools(l)}
	for _, t := range st.sorted {
		if t.Access == nil || len(t.Access.FS) == 0 {
			continue
		}
		tf := &toolFS{tool: t}
		results := bindFS(opts.Disk, l.Root, t.Access.FS)
		ap := &policy.AccessPolicy{}
		for i := range t.Access.FS {
			b := results[i]
			b.index = i
			b.rule = &t.Access.FS[i]
			tf.rules = append(tf.rules, b)
			if b.err != nil {
				continue
			}
			pr := policy.FsRule{LexicalPath: b.key, External: b.external,
				Read: b.rule.Read, Write: b.rule.Write, Create: b.rule.Create,
				Update: b.rule.Update, Delete: b.rule.Delete, Execute: b.rule.Execute}
			if b.external {
				target := b.abs
				pr.ApprovedTarget = &target
			}
			ap.FS = append(ap.FS, pr)
			tf.byIdx = append(tf.byIdx, b)
		}
		if len(ap.FS) > 0 && l.Root != "" {
			// A checker that cannot be built leaves winner() empty: the
			// rules that depend on it stay silent rather than guess.
			if c, err := opts.Disk.NewChecker(l.Root, ap); err == nil {
				tf.checker = c
			}
		}
		st.tools = append(st.tools, tf)
	}
	return st
}

// show renders an absolute path for a message: ~/... under the home
// directory, else as is.
func (st *state) show(abs string) string {
	if rel, ok := relUnder(st.home, abs); ok {
		if rel == "" {
			return "~"
		}
		return "~/" + rel
	}
	return filepath.ToSlash(abs)
}

// relUnder returns p relative to dir (slash-separated, "" for dir
// itself) when p is dir or lies beneath it.
func relUnder(dir, p string) (string, bool) {
	if dir == "" || p == "" {
		return "", false
	}
	// Most calls compare two clean absolute paths, and most answer no:
	// decide those by prefix, without the string filepath.Rel builds for
	// "../../x". Windows compares names case-insensitively: Rel decides.
	if filepath.Separator == '/' && filepath.IsAbs(dir) && filepath.IsAbs(p) && filepath.Clean(dir) == dir && filepath.Clean(p) == p {
		switch {
		case p == dir:
			return "", true
		case dir == "/":
			return p[1:], true
		case len(p) > len(dir) && p[:len(dir)] == dir && p[len(dir)] == '/':
			return p[len(dir)+1:], true
		}
		return "", false
	}
	return relUnderByRel(dir, p)
}

// relUnderByRel is relUnder decided by filepath.Rel, for any paths.
func relUnderByRel(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	if rel == "." {
		return "", true
	}
	return filepath.ToSlash(rel), true
}

// joinKey appends a slash-separated suffix to a workspace-relative key.
func joinKey(key, rel string) string {
	switch {
	case rel == "":
		return key
	case key == "":
		return rel
	}
	return key + "/" + rel
}
