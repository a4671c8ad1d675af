package policy

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/jp-policy/jp-policy/internal/platform"
)

// MaxSymlinks bounds how many links one resolution follows (Linux's
// MAXSYMLINKS); more is KindLoop.
const MaxSymlinks = 40

// Resolved is a target path after RFD 076 path evaluation.
type Resolved struct {
	// Lexical is the input's lexical normal form (see LexicalRel):
	// slash-separated, workspace-relative, "" for the root. External
	// rules are matched against it.
	Lexical string
	// Abs is the canonical absolute path: every existing component
	// resolved through symlinks, a missing suffix appended as written.
	Abs string
	// Rel is Abs relative to the root, slash-separated, "" for the root
	// itself; empty (and meaningless) when Inside is false.
	Rel string
	// Inside reports whether Abs is the root or lies beneath it.
	Inside bool
	// Exists reports whether Abs exists (no missing suffix).
	Exists bool
	// Links lists, in the order they were followed, the absolute paths of
	// the symlinks the resolution went through: what a recorded decision
	// depends on besides the path itself (the compiler hashes them, so a
	// retarget makes the artifact stale).
	Links []string
}

// Canonicalize evaluates a workspace-relative target path against root,
// which must be the canonical absolute workspace root. It is THE one
// canonicalisation routine: checks, rule binding and every caller that
// needs "where does this path really go" use it.
//
// Order (RFD 076 "Path evaluation" as amended by RFD D43): NUL bytes,
// over-long input and absolute input are refused, ".." is collapsed
// lexically (climbing above the root is KindInputEscape), then every
// existing component is resolved through symlinks, one lstat at a time.
// A missing component ends the walk and the rest is appended unresolved,
// unless the missing component was reached through a symlink: then the
// link dangles and the path is KindDangling. A path that lands outside the
// root is not an error here (Inside is false); whether an external rule
// admits it is the checker's decision.
func Canonicalize(root, input string) (Resolved, error) {
	return (*StatCache)(nil).Canonicalize(root, input)
}

// Canonicalize is the package's Canonicalize with c's answers (a nil c
// asks the disk).
func (c *StatCache) Canonicalize(root, input string) (Resolved, error) {
	lex, err := LexicalRel(input)
	if err != nil {
		return Resolved{}, err
	}
	return c.resolveLexical(root, lex, input)
}

func (c *StatCache) resolveLexical(root, lex, input string) (Resolved, error) {
	if root == "" || !filepath.IsAbs(root) {
		return Resolved{}, &PathError{Kind: KindInvalid, Path: root, Msg: "workspace root must be an absolute path"}
	}
	root = filepath.Clean(root)
	abs, exists, links, perr := c.walk(root, lex, input)
	if perr != nil {
		return Resolved{}, perr
	}
	r := Resolved{Lexical: lex, Abs: abs, Exists: exists, Links: links}
	if hasPathPrefix(abs, root) {
		r.Inside = true
		rel := strings.TrimLeft(abs[len(root):], string(filepath.Separator))
		r.Rel = filepath.ToSlash(rel)
	}
	return r, nil
}

// walk resolves lex (slash-separated, normal) beneath root.
func (sc *StatCache) walk(root, lex, input string) (string, bool, []string, *PathError) {
	cur := root
	if lex == "" {
		return cur, true, nil, nil
	}
	var links []string
	// queue holds components still to visit; the first fromLink of them
	// came out of symlink targets. Links are expanded by prepending their
	// target's components, so link-derived components always lead.
	var queue []string
	rest := lex // original components not yet moved into queue
	fromLink := 0
	hops := 0
	next := func() (string, bool, bool) {
		if len(queue) > 0 {
			c := queue[0]
			queue = queue[1:]
			linked := fromLink > 0
			if linked {
				fromLink--
			}
			return c, linked, true
		}
		if rest == "" {
			return "", false, false
		}
		i := strings.IndexByte(rest, '/')
		var c string
		if i < 0 {
			c, rest = rest, ""
		} else {
			c, rest = rest[:i], rest[i+1:]
		}
		return c, false, true
	}
	for {
		c, linked, ok := next()
		if !ok {
			return cur, true, links, nil
		}
		switch c {
		case "", ".":
			continue
		case "..":
			// cur is already physical, so its parent is the real parent.
			cur = filepath.Dir(cur)
			continue
		}
		cand := joinOS(cur, c)
		if len(cand) > MaxPathLen {
			return "", false, nil, &PathError{Kind: KindTooLong, Path: input, Msg: "resolved path is longer than 4096 bytes"}
		}
		mode, err := sc.lstat(cand)
		if err != nil {
			if isNotExist(err) {
				if linked {
					return "", false, nil, &PathError{Kind: KindDangling, Path: input, Msg: "a symlink on the path points at something that does not exist", Err: err}
				}
				// Missing from here on: append the rest unresolved. Only
				// original components remain (link ones lead the queue and
				// this one was not one), and those hold no "..".
				abs := cand
				for {
					c, _, ok := next()
					if !ok {
						break
					}
					abs = joinOS(abs, c)
				}
				if len(abs) > MaxPathLen {
					return "", false, nil, &PathError{Kind: KindTooLong, Path: input, Msg: "resolved path is longer than 4096 bytes"}
				}
				return abs, false, links, nil
			}
			return "", false, nil, osPathError(input, err)
		}
		if !isLink(mode) {
			cur = cand
			continue
		}
		links = append(links, cand)
		hops++
		if hops > MaxSymlinks {
			return "", false, nil, &PathError{Kind: KindLoop, Path: input, Msg: "too many levels of symbolic links"}
		}
		target, err := sc.readlink(cand)
		if err != nil {
			return "", false, nil, osPathError(input, err)
		}
		if target == "" {
			return "", false, nil, &PathError{Kind: KindDangling, Path: input, Msg: "a symlink on the path has an empty target"}
		}
		if strings.IndexByte(target, 0) >= 0 {
			return "", false, nil, &PathError{Kind: KindInvalid, Path: input, Msg: "a symlink target contains a NUL byte"}
		}
		var tcomps []string
		if vol, ok := linkRoot(target); ok {
			cur = vol
			target = target[len(vol):]
		}
		forEachLinkComponent(target, func(s string) {
			if s != "" && s != "." {
				tcomps = append(tcomps, s)
			}
		})
		if len(tcomps) == 0 {
			continue // link to "/" or to its own directory
		}
		queue = append(tcomps, queue...)
		fromLink += len(tcomps)
	}
}

// linkRoot returns the root an absolute link target starts from.
func linkRoot(target string) (string, bool) {
	if !filepath.IsAbs(target) {
		if platform.Host == platform.Windows && target != "" && (target[0] == '\\' || target[0] == '/') {
			return target[:1], true
		}
		return "", false
	}
	vol := filepath.VolumeName(target)
	rest := target[len(vol):]
	n := 0
	for n < len(rest) && isOSSep(rest[n]) {
		n++
	}
	if n == 0 {
		return vol, true
	}
	return vol + rest[:1], true
}

// forEachLinkComponent splits a link target on the OS's separators.
func forEachLinkComponent(s string, f func(string)) {
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || isOSSep(s[i]) || s[i] == '/' {
			f(s[start:i])
			start = i + 1
		}
	}
}

func joinOS(dir, name string) string {
	if dir != "" && isOSSep(dir[len(dir)-1]) {
		return dir + name
	}
	return dir + string(filepath.Separator) + name
}

// isLink reports whether m is a symlink's, or on Windows a junction's
// (which Go reports as irregular since 1.23 but which redirects like a
// link).
func isLink(m fs.FileMode) bool {
	return m&fs.ModeSymlink != 0 || (platform.Host == platform.Windows && m&fs.ModeIrregular != 0)
}

// isNotExist treats ENOTDIR like ENOENT: a component beneath a regular
// file cannot exist.
func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

func osPathError(input string, err error) *PathError {
	switch {
	case errors.Is(err, syscall.ENAMETOOLONG):
		return &PathError{Kind: KindTooLong, Path: input, Msg: "a path component is too long", Err: err}
	case errors.Is(err, syscall.ELOOP):
		return &PathError{Kind: KindLoop, Path: input, Msg: "too many levels of symbolic links", Err: err}
	}
	return &PathError{Kind: KindIO, Path: input, Msg: "cannot resolve path: " + err.Error(), Err: err}
}

// CanonicalAbs is Canonicalize for an absolute path outside any
// workspace (a protected path under the home directory): every existing
// component resolved through symlinks, a missing suffix appended as
// written.
func CanonicalAbs(p string) (string, error) {
	return (*StatCache)(nil).CanonicalAbs(p)
}

// CanonicalAbs is the package's CanonicalAbs with c's answers (a nil c
// asks the disk): the protected paths share their parents (the home
// directory, ~/.config), which a cache resolves once.
func (c *StatCache) CanonicalAbs(p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", &PathError{Kind: KindInvalid, Path: p, Msg: "not an absolute path"}
	}
	p = filepath.Clean(p)
	root := filepath.VolumeName(p) + string(filepath.Separator)
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return "", &PathError{Kind: KindInvalid, Path: p, Msg: err.Error()}
	}
	r, err := c.Canonicalize(root, filepath.ToSlash(rel))
	if err != nil {
		return "", err
	}
	return r.Abs, nil
}

// WriteTargets are the canonical paths a write to the absolute path p
// would change: CanonicalAbs(p), or, where p ends in a symlink whose
// target does not exist (a dotfile linked into a repository that has no
// such file yet), p itself and the path the link would create, followed
// through further dangling links. Protecting a path must protect both:
// creating the missing target creates what p names. When p cannot be
// resolved otherwise (a dangling link above its last element, an I/O
// error), the result is p as written, cleaned.
func (c *StatCache) WriteTargets(p string) []string {
	if a, err := c.CanonicalAbs(p); err == nil {
		return []string{a}
	}
	p = filepath.Clean(p)
	out := []string{p}
	t := p
	for range MaxSymlinks {
		target, err := c.readlink(t)
		if err != nil || target == "" {
			break
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(t), target)
		}
		t = filepath.Clean(target)
		if a, err := c.CanonicalAbs(t); err == nil {
			return append(out, a)
		}
		out = append(out, t)
	}
	return out
}

// Within reports whether p is dir or lies beneath it, comparing whole
// components ("/a/bc" is not within "/a/b").
func Within(p, dir string) bool {
	if p == dir {
		return true
	}
	if dir == string(filepath.Separator) || (len(dir) == 3 && dir[1] == ':' && dir[2] == '\\') {
		return strings.HasPrefix(p, dir)
	}
	return strings.HasPrefix(p, dir) && len(p) > len(dir) && p[len(dir)] == filepath.Separator
}
