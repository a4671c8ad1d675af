package policy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Checker answers access questions for one tool's policy in one
// workspace. It is immutable after NewChecker and safe for concurrent use.
type Checker struct {
	root string
	// p is nil when the tool is unrestricted (access: null).
	p *AccessPolicy

	fsTrie *fsTrie
	fsCaps []uint8 // per fs rule: bit c set when the rule grants Capability c
	// fsGrantsBy holds, per capability, the rule paths granting it; shared
	// read-only by every Decision (clipped, so appends copy).
	fsGrantsBy [Execute + 1][]string
	net        []netRuleC
}

// NewChecker validates p and indexes it for root, which must exist; it is
// made absolute and canonical here, once. A nil p is unrestricted but
// still confined to the workspace. A malformed policy is a *PolicyError
// (a config error, never a silent widening).
func NewChecker(root string, p *AccessPolicy) (*Checker, error) {
	return (*StatCache)(nil).NewChecker(root, p)
}

// NewChecker is the package's NewChecker with c's answers for its
// one-time checks (the root, and that every rule path is canonical); the
// Checker's decisions still look at the live disk.
func (sc *StatCache) NewChecker(root string, p *AccessPolicy) (*Checker, error) {
	canon, err := sc.CanonicalRoot(root)
	if err != nil {
		return nil, err
	}
	c := &Checker{root: canon, p: p}
	if p == nil {
		return c, nil
	}
	if err := Validate(p); err != nil {
		return nil, err
	}
	if err := sc.checkCanonicalRules(canon, p.FS); err != nil {
		return nil, err
	}
	c.fsTrie = newFsTrie()
	c.fsCaps = make([]uint8, len(p.FS))
	for i, r := range p.FS {
		key, _ := LexicalRel(r.LexicalPath) // validated above
		c.fsTrie.insert(foldKey(key), i)
		for _, cp := range Capabilities {
			if r.Grants(cp) {
				c.fsCaps[i] |= 1 << cp
			}
		}
	}
	// Like JP's granting_paths (jp_tool access.rs), rules on the same path
	// collapse to the last one, which is the one that decides there, kept
	// at the first one's place: a grant a later rule overrode is nowhere
	// the caller can go, and a path is named once.
	var effective []int
	at := map[string]int{}
	for i, r := range p.FS {
		key, _ := LexicalRel(r.LexicalPath)
		if j, ok := at[foldKey(key)]; ok {
			effective[j] = i
			continue
		}
		at[foldKey(key)] = len(effective)
		effective = append(effective, i)
	}
	for _, cp := range Capabilities {
		g := []string{}
		for _, i := range effective {
			if c.fsCaps[i]&(1<<cp) != 0 {
				g = append(g, displayPath(p.FS[i].LexicalPath))
			}
		}
		c.fsGrantsBy[cp] = slices.Clip(g)
	}
	for _, r := range p.Net {
		rc, _ := compileNetRule(r)
		c.net = append(c.net, rc)
	}
	return c, nil
}

// checkCanonicalRules refuses ordinary rules whose lexical path is not
// their canonical form on this machine. Targets are matched on canonical
// keys, so such a rule would silently never apply, and for a deny rule
// (`alias` where alias -> secret) that is a widening. A compiled policy
// always passes; a hand-written or stale one fails closed.
func (sc *StatCache) checkCanonicalRules(root string, rules []FsRule) error {
	var errs []error
	for i, r := range rules {
		if r.External {
			continue
		}
		key, _ := LexicalRel(r.LexicalPath)
		res, err := sc.resolveLexical(root, key, r.LexicalPath)
		switch {
		case err != nil:
			errs = append(errs, &PolicyError{Section: "fs", Index: i, Err: fmt.Errorf("lexical_path %q cannot be resolved: %w", r.LexicalPath, err)})
		case !res.Inside:
			errs = append(errs, &PolicyError{Section: "fs", Index: i, Err: fmt.Errorf("lexical_path %q resolves outside the workspace (to %s) but the rule is not external", r.LexicalPath, res.Abs)})
		case foldKey(res.Rel) != foldKey(key):
			errs = append(errs, &PolicyError{Section: "fs", Index: i, Err: fmt.Errorf("lexical_path %q is not canonical: it resolves to %q (recompile the policy)", r.LexicalPath, displayPath(res.Rel))})
		}
	}
	return errors.Join(errs...)
}

// CanonicalRoot makes root absolute and resolves its symlinks; it must be
// an existing directory.
func CanonicalRoot(root string) (string, error) {
	return canonicalRootOnDisk(root)
}

func canonicalRootOnDisk(root string) (string, error) {
	if root == "" {
		return "", &PathError{Kind: KindInvalid, Path: root, Msg: "workspace root is empty"}
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", &PathError{Kind: KindIO, Path: root, Msg: "cannot make workspace root absolute", Err: err}
	}
	canon, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", osPathError(root, err)
	}
	fi, err := os.Stat(canon)
	if err != nil {
		return "", osPathError(root, err)
	}
	if !fi.IsDir() {
		return "", &PathError{Kind: KindInvalid, Path: root, Msg: "workspace root is not a directory"}
	}
	return canon, nil
}

// Root is the canonical workspace root the checker resolves against.
func (c *Checker) Root() string { return c.root }

// Validate checks every rule of p the way NewChecker needs them: fs rule
// paths workspace-relative and free of "..", external rules with an
// absolute approved target, net/env/config/commands per their
// validators. Errors are joined *PolicyError values.
func Validate(p *AccessPolicy) error {
	if p == nil {
		return nil
	}
	var errs []error
	add := func(section string, i int, err error) {
		errs = append(errs, &PolicyError{Section: section, Index: i, Err: err})
	}
	for i, r := range p.FS {
		if _, err := LexicalRel(r.LexicalPath); err != nil {
			add("fs", i, fmt.Errorf("lexical_path: %w", err))
		}
		if r.ApprovedTarget != nil {
			if !r.External {
				add("fs", i, errors.New("approved_target is set on a rule that is not external"))
			} else if !filepath.IsAbs(*r.ApprovedTarget) {
				add("fs", i, fmt.Errorf("approved_target %q is not absolute", *r.ApprovedTarget))
			}
		}
	}
	for i, r := range p.Net {
		if err := ValidateNetRule(r); err != nil {
			add("net", i, err)
		}
	}
	for i, r := range p.Env {
		if err := ValidateEnvName(r.Name); err != nil {
			add("env", i, err)
		}
	}
	for i, r := range p.Config {
		if err := ValidateConfigPath(r.Path); err != nil {
			add("config", i, err)
		} else if err := validateConfigRuleMeaning(r); err != nil {
			add("config", i, err)
		}
		if err := validateApply(r.Apply); err != nil {
			add("config", i, err)
		}
		switch r.Write {
		case ConfigWriteDeny, ConfigWriteAllow, ConfigWriteInsecureAllow:
		default:
			add("config", i, fmt.Errorf("write %q is not false, true or \"insecure_allow\"", string(r.Write)))
		}
	}
	for _, k := range commandKeys(p.Commands) {
		if err := validateCommandKey(k); err != nil {
			errs = append(errs, &PolicyError{Section: "commands", Index: -1, Key: k, Err: err})
		}
		if err := ValidateCommandArgs(p.Commands[k].Args); err != nil {
			errs = append(errs, &PolicyError{Section: "commands", Index: -1, Key: k, Err: err})
		}
	}
	return errors.Join(errs...)
}

// displayPath renders a workspace-relative key the way config writes it.
func displayPath(key string) string {
	if key == "" {
		return "."
	}
	return key
}
