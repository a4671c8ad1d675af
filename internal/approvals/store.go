package approvals

import (
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
)

func (k Kind) String() string {
	switch k {
	case Approved:
		return "approved"
	case Retargeted:
		return "retargeted"
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

// Classify compares canonicalTarget with the approval stored for rulePath.
// Targets are compared as exact strings: both sides are canonical, and any
// difference must re-prompt rather than be explained away.
func (s *Store) Classify(rulePath, canonicalTarget string) Status {
	e, ok := s.entries[rulePath]
	switch {
	case !ok:
		return Status{Kind: Unknown}
	case e.CanonicalTarget == canonicalTarget:
		return Status{Kind: Approved, Previous: e.CanonicalTarget, ApprovedAt: e.ApprovedAt}
	default:
		return Status{Kind: Retargeted, Previous: e.CanonicalTarget, ApprovedAt: e.ApprovedAt}
	}
}

// Approve records (or replaces) the binding of rulePath to target.
func (s *Store) Approve(rulePath, target string, now time.Time) {
	s.entries[rulePath] = Entry{
		RulePath:        rulePath,
		CanonicalTarget: target,
		// JP writes whole-second UTC stamps; sub-second noise would make
		// otherwise identical rewrites differ.
		ApprovedAt: now.UTC().Truncate(time.Second),
	}
}

// Revoke removes the binding of rulePath and reports whether there was one.
func (s *Store) Revoke(rulePath string) bool {
	_, ok := s.entries[rulePath]
	delete(s.entries, rulePath)
	return ok
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
