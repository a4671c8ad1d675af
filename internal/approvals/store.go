package approvals

import (
	"slices"
	"sort"
	"time"
)

// FileName is the store's name inside user-workspace storage.
const FileName = "approvals.json"

// Entry is one approved binding, in JP's wire shape.
type Entry struct {
	// RulePath is the workspace-relative, slash-separated lexical path of
	// the external rule (the symlink), exactly as the compiler matches it.
	RulePath string `json:"rule_path"`
	// CanonicalTarget is the canonical absolute path the rule path was
	// approved to resolve to.
	CanonicalTarget string    `json:"canonical_target"`
	ApprovedAt      time.Time `json:"approved_at"`
	// ApprovedIn lists the canonical roots of the workspaces in which the
	// user approved the binding, sorted. JP keys the store by the
	// workspace id in `.jp/.id`, which a repository commits and anyone
	// can copy: without this list, a hostile clone shipping another
	// workspace's id (and a link to the same target) would inherit its
	// approvals silently (attack_borrowed_id.txtar). Empty for an entry
	// written by hand or by JP, which names no workspace and holds in
	// every workspace that shares the store, as RFD D43 has it.
	ApprovedIn []string `json:"approved_in,omitempty"`
}

// Kind is the outcome of Classify.
type Kind int

const (
	// Unknown: no approval exists for the rule path.
	Unknown Kind = iota
	// Approved: an approval exists and names this exact target.
	Approved
	// Retargeted: an approval exists for a different target; the symlink
	// was pointed somewhere else since the user approved it.
	Retargeted
	// OtherWorkspace: an approval names this exact target, but it was
	// given in other workspaces that share this one's id, not in this one.
	OtherWorkspace
)

func (k Kind) String() string {
	switch k {
	case Approved:
		return "approved"
	case Retargeted:
		return "retargeted"
	case OtherWorkspace:
		return "other_workspace"
	default:
		return "unknown"
	}
}

// MarshalText renders the kind as a word in JSON output.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Status is what the store says about a (rule path, target) pair.
type Status struct {
	Kind Kind
	// Previous is the approved target when Kind is Retargeted (and the
	// same as the candidate when Kind is Approved).
	Previous string
	// ApprovedAt is when the stored binding was approved; zero for Unknown.
	ApprovedAt time.Time
	// ApprovedIn is the entry's workspaces when Kind is OtherWorkspace.
	ApprovedIn []string
}

// Store is an in-memory approval store. The zero value is not usable; get
// one from Load or New.
type Store struct {
	path    string
	entries map[string]Entry
	// extra holds top-level keys other than "mounts", verbatim, so a
	// rewrite keeps categories a newer JP added.
	extra map[string][]byte
	// corrupt records that the file on disk could not be read as a store;
	// its content is not represented here, so Save must not clobber it
	// without an explicit force.
	corrupt       bool
	corruptReason string
}

// New returns an empty store that will be saved at path.
func New(path string) *Store {
	return &Store{path: path, entries: map[string]Entry{}, extra: map[string][]byte{}}
}

// Path is the file the store was loaded from and saves to.
func (s *Store) Path() string { return s.path }

// Corrupt reports whether the file on disk was unreadable as a store when
// it was loaded (the store then reads as empty).
func (s *Store) Corrupt() bool { return s.corrupt }

// Lookup returns the approved target of rulePath.
func (s *Store) Lookup(rulePath string) (target string, ok bool) {
	e, ok := s.entries[rulePath]
	return e.CanonicalTarget, ok
}

// LookupIn returns the target approved for rulePath, as seen from the
// workspace whose canonical root is root: ok when there is an entry;
// elsewhere is set when the entry was approved only in other workspaces
// that share root's id, so it does not hold at root.
func (s *Store) LookupIn(rulePath, root string) (target string, elsewhere []string, ok bool) {
	e, ok := s.entries[rulePath]
	if ok && !e.holdsIn(root) {
		elsewhere = slices.Clone(e.ApprovedIn)
	}
	return e.CanonicalTarget, elsewhere, ok
}

// holdsIn reports whether the entry's approval holds in the workspace
// whose canonical root is root: it names no workspace (written by hand
// or by JP), or root among them. The one place that decides it.
func (e Entry) holdsIn(root string) bool {
	return len(e.ApprovedIn) == 0 || slices.Contains(e.ApprovedIn, root)
}

// Classify compares canonicalTarget with the approval stored for rulePath,
// as seen from the workspace whose canonical root is root. Targets are
// compared as exact strings: both sides are canonical, and any difference
// must re-prompt rather than be explained away.
func (s *Store) Classify(rulePath, canonicalTarget, root string) Status {
	e, ok := s.entries[rulePath]
	switch {
	case !ok:
		return Status{Kind: Unknown}
	case e.CanonicalTarget != canonicalTarget:
		return Status{Kind: Retargeted, Previous: e.CanonicalTarget, ApprovedAt: e.ApprovedAt}
	case e.holdsIn(root):
		return Status{Kind: Approved, Previous: e.CanonicalTarget, ApprovedAt: e.ApprovedAt}
	default:
		return Status{Kind: OtherWorkspace, Previous: e.CanonicalTarget, ApprovedAt: e.ApprovedAt, ApprovedIn: slices.Clone(e.ApprovedIn)}
	}
}

// Approve records the user's approval, in the workspace at root, of
// rulePath resolving to target. An approval of the same target given in
// other workspaces gains root; a new or retargeted binding replaces the
// entry and holds in root only (the other workspaces are asked again).
func (s *Store) Approve(rulePath, target, root string, now time.Time) {
	if e, ok := s.entries[rulePath]; ok && e.CanonicalTarget == target {
		if e.holdsIn(root) {
			return
		}
		e.ApprovedIn = append(slices.Clone(e.ApprovedIn), root)
		slices.Sort(e.ApprovedIn)
		s.entries[rulePath] = e
		return
	}
	s.entries[rulePath] = Entry{
		RulePath:        rulePath,
		CanonicalTarget: target,
		// JP writes whole-second UTC stamps; sub-second noise would make
		// otherwise identical rewrites differ.
		ApprovedAt: now.UTC().Truncate(time.Second),
		ApprovedIn: []string{root},
	}
}

// Revoke withdraws the approval of rulePath in the workspace at root:
// root leaves the entry's workspaces, and the entry goes when none is
// left or it names none (an entry written by hand). It reports whether
// anything was withdrawn; when not, elsewhere lists the workspaces the
// entry holds in, if there is one.
func (s *Store) Revoke(rulePath, root string) (ok bool, elsewhere []string) {
	e, found := s.entries[rulePath]
	switch {
	case !found:
		return false, nil
	case len(e.ApprovedIn) == 0 || len(e.ApprovedIn) == 1 && e.ApprovedIn[0] == root:
		delete(s.entries, rulePath)
		return true, nil
	case !e.holdsIn(root):
		return false, slices.Clone(e.ApprovedIn)
	}
	e.ApprovedIn = slices.DeleteFunc(slices.Clone(e.ApprovedIn), func(r string) bool { return r == root })
	s.entries[rulePath] = e
	return true, nil
}

// Entries returns every binding, sorted by rule path.
func (s *Store) Entries() []Entry {
	out := make([]Entry, 0, len(s.entries))
	for _, e := range s.entries {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].RulePath < out[j].RulePath })
	return out
}
