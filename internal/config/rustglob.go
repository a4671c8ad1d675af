package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"unicode/utf8"
)

// JP expands `extends` patterns with the Rust glob crate (0.3, default
// options: case-sensitive, `*` matches a leading dot). Its syntax is not
// doublestar's, and the difference decides which files JP loads:
//
//   - `\` is an ordinary character on Unix, never an escape: `x\*.toml`
//     matches `x\evil.toml`, not `x*.toml`;
//   - `[!...]` negates a class; `[^...]` is a class holding `^`;
//     `]` right after `[` or `[!` is a member (`[]]`, `[!]]`);
//   - braces are literal;
//   - `**` must be a whole component, `***` is an error, an unclosed `[`
//     is an error (JP does not start);
//   - a pattern component that starts with a literal `.` also matches the
//     directory entries `.` and `..` (`conf.d/.*` yields `conf.d/.` and
//     `conf.d/..`);
//   - directories match like files (`tools/*.toml` yields a directory
//     named `x.toml`), and a pattern ending in `**` yields only
//     directories.
//
// jpGlob walks the file system as the crate's iterator does (a stack of
// directory entries, each directory's entries sorted by name), so the
// matches come in JP's order.

var errRecursive = errors.New("`**` must be a whole path component")

// globTok is one token of a compiled pattern component.
type globTok struct {
	kind   byte // 'c' char, '?' any char, '*' any sequence, 'R' recursive, '[' within, '!' except
	c      rune
	ranges [][2]rune
}

type globPat struct {
	toks      []globTok
	recursive bool
}

// compileGlobComponent compiles one pattern, as the crate's Pattern::new.
func compileGlobComponent(s string) (*globPat, error) {
	chars := []rune(s)
	p := &globPat{}
	for i := 0; i < len(chars); {
		switch chars[i] {
		case '?':
			p.toks = append(p.toks, globTok{kind: '?'})
			i++
		case '*':
			old := i
			for i < len(chars) && chars[i] == '*' {
				i++
			}
			switch n := i - old; {
			case n > 2:
				return nil, errors.New("wildcards are either regular `*` or recursive `**`")
			case n == 2:
				if !(i == 2 || chars[i-n-1] == '/') {
					return nil, errRecursive
				}
				switch {
				case i < len(chars) && chars[i] == '/':
					i++
				case i == len(chars):
				default:
					return nil, errRecursive
				}
				if !(len(p.toks) > 1 && p.toks[len(p.toks)-1].kind == 'R') {
					p.recursive = true
					p.toks = append(p.toks, globTok{kind: 'R'})
				}
			default:
				p.toks = append(p.toks, globTok{kind: '*'})
			}
		case '[':
			if i+4 <= len(chars) && chars[i+1] == '!' {
				if j := slices.Index(chars[i+3:], ']'); j >= 0 {
					p.toks = append(p.toks, globTok{kind: '!', ranges: globRanges(chars[i+2 : i+3+j])})
					i += j + 4
					continue
				}
			} else if i+3 <= len(chars) && chars[i+1] != '!' {
				if j := slices.Index(chars[i+2:], ']'); j >= 0 {
					p.toks = append(p.toks, globTok{kind: '[', ranges: globRanges(chars[i+1 : i+2+j])})
					i += j + 3
					continue
				}
			}
			return nil, errors.New("`[` opens a character class that is never closed")
		default:
			p.toks = append(p.toks, globTok{kind: 'c', c: chars[i]})
			i++
		}
	}
	return p, nil
}

func globRanges(s []rune) [][2]rune {
	var out [][2]rune
	for i := 0; i < len(s); {
		if i+3 <= len(s) && s[i+1] == '-' {
			out = append(out, [2]rune{s[i], s[i+2]})
			i += 3
		} else {
			out = append(out, [2]rune{s[i], s[i]})
			i++
		}
	}
	return out
}

// literal returns the component as a string when it has no wildcard.
func (p *globPat) literal() (string, bool) {
	var b strings.Builder
	for _, t := range p.toks {
		if t.kind != 'c' {
			return "", false
		}
		b.WriteRune(t.c)
	}
	return b.String(), true
}

func (p *globPat) match(name string) bool {
	return globMatch(p.toks, []rune(name))
}

func globMatch(toks []globTok, s []rune) bool {
	for ti, t := range toks {
		switch t.kind {
		case '*', 'R':
			for k := 0; k <= len(s); k++ {
				if globMatch(toks[ti+1:], s[k:]) {
					return true
				}
			}
			return false
		}
		if len(s) == 0 {
			return false
		}
		c := s[0]
		s = s[1:]
		switch t.kind {
		case 'c':
			if c != t.c {
				return false
			}
		case '[', '!':
			in := false
			for _, r := range t.ranges {
				if c >= r[0] && c <= r[1] {
					in = true
					break
				}
			}
			if in != (t.kind == '[') {
				return false
			}
		}
	}
	return len(s) == 0
}

// jpGlob expands an absolute pattern as the Rust glob crate's glob()
// iterator does, returning the matches in its order. Directory entries
// whose names are not UTF-8 never match a wildcard, as in the crate. An
// unreadable directory is an error (the crate yields it as an error entry
// that JP skips; jp-policy refuses rather than guess what it holds).
func jpGlob(pattern string) ([]string, error) {
	out, _, err := jpGlobListed(pattern)
	return out, err
}

// jpGlobListed is jpGlob that also returns the directories whose entries
// it read: through a symlinked directory (`**` follows them) these lie
// outside the pattern's own base directory, and a file created in one
// is a layer JP loads just the same.
func jpGlobListed(pattern string) ([]string, []string, error) {
	if _, err := compileGlobComponent(pattern); err != nil {
		return nil, nil, err
	}
	if !strings.HasPrefix(pattern, "/") {
		return nil, nil, fmt.Errorf("pattern %q is not absolute", pattern)
	}
	var pats []*globPat
	rest := strings.TrimLeft(pattern, "/")
	if rest == "" {
		return nil, nil, nil
	}
	for c := range strings.SplitSeq(strings.TrimSuffix(rest, "/"), "/") {
		p, err := compileGlobComponent(c)
		if err != nil {
			return nil, nil, err
		}
		pats = append(pats, p)
	}
	g := &globWalk{pats: pats}
	g.fill(0, globEntry{path: "/", dir: true})
	var out []string
	for len(g.todo) > 0 {
		if g.err != nil {
			return nil, nil, g.err
		}
		e := g.todo[len(g.todo)-1]
		g.todo = g.todo[:len(g.todo)-1]
		idx := e.idx
		if idx < 0 {
			out = append(out, e.path)
			continue
		}
		if pats[idx].recursive {
			next := idx
			for next+1 < len(pats) && pats[next+1].recursive {
				next++
			}
			if e.dir {
				g.fill(next, e)
				if next == len(pats)-1 {
					out = append(out, e.path)
					continue
				}
				idx = next + 1
			} else if next == len(pats)-1 {
				continue
			} else {
				idx = next + 1
			}
		}
		name := lastName(e.path)
		if !utf8.ValidString(name) || !pats[idx].match(name) {
			continue
		}
		if idx == len(pats)-1 {
			out = append(out, e.path)
		} else {
			g.fill(idx+1, e)
		}
	}
	if g.err != nil {
		return nil, nil, g.err
	}
	return out, g.listed, nil
}

type globEntry struct {
	path string
	dir  bool
	idx  int // -1: matched already
}

type globWalk struct {
	pats []*globPat
	todo []globEntry
	seen int
	err  error
	// listed are the directories whose entries the walk read.
	listed []string
}

func statDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func joinRaw(dir, name string) string {
	if strings.HasSuffix(dir, "/") {
		return dir + name
	}
	return dir + "/" + name
}

// fill is the crate's fill_todo: queue the entries under dir that
// pattern idx is to be matched against.
func (g *globWalk) fill(idx int, dir globEntry) {
	if g.err != nil {
		return
	}
	add := func(p string) {
		e := globEntry{path: p, dir: statDir(p)}
		if idx+1 == len(g.pats) {
			e.idx = -1
			g.todo = append(g.todo, e)
			return
		}
		g.fill(idx+1, e)
	}
	pat := g.pats[idx]
	if s, ok := pat.literal(); ok {
		next := joinRaw(dir.path, s)
		special := s == "." || s == ".."
		if special && dir.dir {
			add(next)
		} else if !special {
			if _, err := os.Lstat(next); err == nil {
				add(next)
			}
		}
		return
	}
	if !dir.dir {
		return
	}
	g.listed = append(g.listed, dir.path)
	ents, err := os.ReadDir(dir.path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			g.err = err
		}
		return
	}
	g.seen += len(ents)
	if g.seen > maxGlobEntries {
		g.err = errGlobTooBig
		return
	}
	// Sorted by name, descending, onto a stack: popped in ascending order.
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(b.Name(), a.Name()) })
	for _, de := range ents {
		p := joinRaw(dir.path, de.Name())
		isDir := de.IsDir()
		if de.Type()&fs.ModeSymlink != 0 {
			isDir = statDir(p)
		}
		g.todo = append(g.todo, globEntry{path: p, dir: isDir, idx: idx})
	}
	if len(pat.toks) > 0 && pat.toks[0].kind == 'c' && pat.toks[0].c == '.' {
		for _, special := range []string{".", ".."} {
			if pat.match(special) {
				add(joinRaw(dir.path, special))
			}
		}
	}
}

// lastName is Rust's Path::file_name for the paths jpGlob builds: the
// last component ("." and ".." are never matched here: they are queued
// as matched already).
func lastName(p string) string {
	return p[strings.LastIndexByte(p, '/')+1:]
}

// rustFileName is Rust's Path::file_name on Unix: the last component,
// after dropping trailing separators and "." components; "" when it is
// ".." or there is none.
func rustFileName(p string) (name string, end int) {
	for {
		t := strings.TrimRight(p, "/")
		if t == "" {
			return "", 0
		}
		i := strings.LastIndexByte(t, '/')
		last := t[i+1:]
		switch {
		case last == "." && i >= 0:
			p = t[:i+1]
			continue
		case last == "." || last == "..":
			return "", 0
		}
		return last, len(t)
	}
}

// rustExtensionCandidates lists the paths JP's load_config_file_at_path
// tries for p, in order: p itself, then p with Rust's set_extension
// applied for each of JP's extensions. set_extension cuts the path right
// after the file stem ("conf.d/." becomes "conf.toml", ".hidden" becomes
// ".hidden.toml") and does nothing when there is no file name ("x/..").
func rustExtensionCandidates(p string, exts []string) []string {
	out := []string{p}
	name, end := rustFileName(p)
	if name == "" {
		return out
	}
	stem := name
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		stem = name[:i]
	}
	prefix := p[:end-len(name)+len(stem)]
	for _, ext := range exts {
		out = append(out, prefix+ext)
	}
	return out
}
