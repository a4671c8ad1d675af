package approvals

import (
	"errors"
	"fmt"
	"time"

	"github.com/jp-policy/jp-policy/internal/diag"
)

// Open loads the store of the workspace at root: file when it is set,
// else JP's default (DefaultPath). A workspace without a `.jp/.id` JP
// accepts has no user storage, so nothing can have been approved there: Open returns an
// empty store whose Path is "", and Review then drops every unapproved
// target with a message saying how to give the workspace an id, instead
// of inventing a location.
func Open(root, file string, getenv func(string) string) (*Store, []diag.Diagnostic, error) {
	if file == "" {
		p, err := DefaultPath(root, getenv)
		if _, noID := errors.AsType[*NoIDError](err); noID {
			return New(""), nil, nil
		}
		if err != nil {
			return nil, nil, err
		}
		file = p
	}
	return Load(file)
}

// Candidate is one external rule path about to be compiled and the
// canonical target it resolves to now.
type Candidate struct {
	RulePath string
	Target   string
}

// Verdict is what Review decided for a candidate.
type Verdict int

const (
	// Trusted: approved before, or approved by the user just now.
	Trusted Verdict = iota
	// NoStorage: not approved, and the store has no file (no .jp/.id),
	// so an approval could not be recorded and the user was not asked.
	NoStorage
	// Declined: the user was asked and said no.
	Declined
	// NotApproved: not approved and there was no one to ask.
	NotApproved
)

// Decision is Review's answer for one candidate.
type Decision struct {
	Candidate
	Verdict Verdict
	// Previous is the target approved before when the rule path was
	// retargeted; "" when it was never approved.
	Previous string
	// ApprovedIn lists the other workspaces (sharing this one's id) in
	// which exactly this binding was approved, when it was approved in
	// none but those.
	ApprovedIn []string
}

// Ask asks the user whether to trust c's target (d.Previous is the
// target approved before a retarget, d.ApprovedIn the other workspaces
// that approved it). Implementations must default to no.
type Ask func(d Decision) (bool, error)

// Review runs the D43 approval lifecycle (trust on first use) over cands
// for the workspace whose canonical root is root: an approved (rule
// path, target) pair is trusted; a new or retargeted one, or one
// approved only in other workspaces that share this one's id, is put to
// ask, when there is one and the store can record the answer, and
// dropped otherwise. Approvals the user grants are saved before Review
// returns, replacing a corrupt store: the user's explicit consent is the
// only case in which that is allowed.
func Review(store *Store, root string, cands []Candidate, ask Ask, now time.Time) ([]Decision, error) {
	out := make([]Decision, 0, len(cands))
	dirty := false
	for _, c := range cands {
		d := Decision{Candidate: c}
		st := store.Classify(c.RulePath, c.Target, root)
		switch st.Kind {
		case Retargeted:
			d.Previous = st.Previous
		case OtherWorkspace:
			d.ApprovedIn = st.ApprovedIn
		}
		switch {
		case st.Kind == Approved:
			d.Verdict = Trusted
		case store.Path() == "":
			d.Verdict = NoStorage
		case ask != nil:
			ok, err := ask(d)
			if err != nil {
				return nil, err
			}
			d.Verdict = Declined
			if ok {
				store.Approve(c.RulePath, c.Target, root, now)
				d.Verdict, dirty = Trusted, true
			}
		default:
			d.Verdict = NotApproved
		}
		out = append(out, d)
	}
	if dirty {
		if err := store.Save(true); err != nil {
			return nil, fmt.Errorf("recording approvals in %s: %w", store.Path(), err)
		}
	}
	return out, nil
}
