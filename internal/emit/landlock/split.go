package landlock

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"

	ll "github.com/jp-policy/jp-policy/internal/plan/landlock"

	"github.com/jp-policy/jp-policy/internal/emit"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// Landlock only ever adds rights down a hierarchy: a right on a directory
// reaches everything beneath it. A rule that narrows a broader one (".env"
// granting nothing inside a read-write workspace) therefore cannot be a
// grant on its own path; the broader grant has to be split.
//
// At a directory P whose winning rule grants `want`, the rights placed on
// P itself are want ∩ rights(n) for every rule n beneath P, so nothing on
// P reaches a narrower path with more than that path's rule allows
// (remove_*/make_*/refer on P govern P's entries, so they would let the
// tool unlink, replace or rename the narrowed path out of its rule's
// reach). The withheld rest goes onto P's existing entries that lead to no
// narrower rule, and the split recurses into the entries that do.

// entryKind is what a path is on disk at build time.
type entryKind int

const (
	kMissing entryKind = iota
	kDir
	kFile // anything that is neither a directory nor a symlink
	kSymlink
)

func kindOf(m fs.FileMode) entryKind {
	switch {
	case m&fs.ModeSymlink != 0:
		return kSymlink
	case m.IsDir():
		return kDir
	default:
		return kFile
	}
}

// ruleNote collects what the split could not express for one rule, so the
// rule's clause can say exactly what is degraded.
type ruleNote struct {
	splitDirs []string
	lost      ll.Rights // rights withheld on splitDirs
	around    []int     // indexes of the narrower rules that forced the split
	missing   bool      // the rule's path did not exist at build time
	symlink   bool      // the rule's path was a symlink (not canonical)
	fileLost  ll.Rights // directory rights meaningless on a file path
	unlisted  []string  // directories that could not be listed
	symlinks  int       // symlink entries skipped in split directories
}

type splitter struct {
	fsys    emit.FS
	rules   []emit.AbsRule // live rules only
	grants  []ll.PathRule
	notes   map[int]*ruleNote
	visited map[int]bool
}

// split computes the grants for rules (live rules, sorted by Abs).
func split(fsys emit.FS, rules []emit.AbsRule) ([]ll.PathRule, map[int]*ruleNote) {
	s := &splitter{fsys: fsys, rules: rules, notes: map[int]*ruleNote{}, visited: map[int]bool{}}
	for _, r := range rules {
		if hasAncestorRule(rules, r.Abs) {
			continue
		}
		s.place(r.Abs, lstatKind(fsys, r.Abs), RightsOf(emit.CapsOf(r.Rule)), 0, r, true)
	}
	for _, r := range rules {
		if !s.visited[r.Index] {
			// Beneath a path that does not exist (or is not a directory):
			// nothing can be granted on it yet.
			s.visited[r.Index] = true
			if RightsOf(emit.CapsOf(r.Rule)) != 0 {
				s.note(r.Index).missing = true
			}
		}
	}
	sort.SliceStable(s.grants, func(a, b int) bool { return s.grants[a].Path < s.grants[b].Path })
	return s.grants, s.notes
}

func (s *splitter) note(i int) *ruleNote {
	n := s.notes[i]
	if n == nil {
		n = &ruleNote{}
		s.notes[i] = n
	}
	return n
}

func (s *splitter) emit(path string, r ll.Rights, owner emit.AbsRule, optional bool) {
	if r == 0 {
		return
	}
	s.grants = append(s.grants, ll.PathRule{
		Path:     path,
		Access:   r.Names(),
		Clause:   clauseOf(owner),
		Optional: optional,
	})
}

// place grants `want` (the winning rule's rights) on path and beneath it,
// given that its ancestors already carry `inherited` (always a subset of
// want and of every rule beneath path).
func (s *splitter) place(path string, kind entryKind, want, inherited ll.Rights, owner emit.AbsRule, ruleNode bool) {
	if ruleNode {
		s.visited[owner.Index] = true
	}
	switch kind {
	case kMissing:
		if ruleNode && want&^inherited != 0 {
			s.note(owner.Index).missing = true
		}
		return
	case kSymlink:
		// Canonical rule paths are never symlinks; one here means the
		// tree changed under the compiler. A grant would land on the
		// link's target, so grant nothing.
		if ruleNode {
			s.note(owner.Index).symlink = true
		}
		return
	case kFile:
		if ruleNode {
			// read_dir has nothing to list beneath a file; the other
			// directory rights (create, delete, rename the file itself)
			// live on the parent and are lost here.
			s.note(owner.Index).fileLost |= want &^ inherited &^ ll.FileRights &^ ll.RReadDir
		}
		s.emit(path, (want&^inherited)&ll.FileRights, owner, !ruleNode)
		return
	}
	below := emit.Beneath(s.rules, path)
	if len(below) == 0 {
		s.emit(path, want&^inherited, owner, !ruleNode)
		return
	}
	shared := want
	for _, n := range below {
		r := RightsOf(emit.CapsOf(n.Rule))
		if lstatKind(s.fsys, n.Abs) == kFile {
			// read_dir lists directories only; on an ancestor it never
			// reaches an existing file, and withholding it would stop the
			// tool listing the workspace because of one narrowed file.
			r |= ll.RReadDir
		}
		shared &= r
	}
	s.emit(path, shared&^inherited, owner, !ruleNode)
	n := s.note(owner.Index)
	if want&^shared != 0 {
		n.splitDirs = append(n.splitDirs, path)
		n.lost |= want &^ shared
	}
	for _, o := range emit.Outermost(s.rules, path) {
		n.around = appendUnique(n.around, o.Index)
	}
	entries, err := s.fsys.ReadDir(path)
	if err != nil {
		// Fail closed: without a listing the withheld rights go nowhere.
		n.unlisted = append(n.unlisted, path)
		return
	}
	for _, e := range entries {
		child := filepath.Join(path, e.Name())
		ck := kindOf(e.Type())
		if r, ok := s.ruleAt(child); ok {
			s.place(child, ck, RightsOf(emit.CapsOf(r.Rule)), shared, r, true)
			continue
		}
		if ck == kSymlink {
			// Landlock checks the target, which has grants of its own
			// where a rule covers it; a grant on the link path would
			// follow it and could land on a narrowed path.
			n.symlinks++
			continue
		}
		if len(emit.Beneath(s.rules, child)) > 0 {
			s.place(child, ck, want, shared, owner, false)
			continue
		}
		rest := want &^ shared
		if ck == kFile {
			rest &= ll.FileRights
		}
		s.emit(child, rest, owner, true)
	}
}

func (s *splitter) ruleAt(p string) (emit.AbsRule, bool) {
	for _, r := range s.rules {
		if r.Abs == p {
			return r, true
		}
	}
	return emit.AbsRule{}, false
}

func hasAncestorRule(rules []emit.AbsRule, p string) bool {
	for _, r := range rules {
		if r.Abs != p && policy.Within(p, r.Abs) {
			return true
		}
	}
	return false
}

func lstatKind(fsys emit.FS, p string) entryKind {
	fi, err := fsys.Lstat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return kMissing
		}
		// Unreadable: treat as missing, which grants nothing (fail closed).
		return kMissing
	}
	return kindOf(fi.Mode())
}

func appendUnique(xs []int, x int) []int {
	if slices.Contains(xs, x) {
		return xs
	}
	return append(xs, x)
}

// clauseOf names the clause a grant serves: its rule's, or
// "fs.protected" for a protected path's guard (protectedGuards).
func clauseOf(owner emit.AbsRule) string {
	if owner.Index < 0 {
		return "fs.protected"
	}
	return fmt.Sprintf("fs[%d]", owner.Index)
}
