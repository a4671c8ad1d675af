package lint

import (
	"fmt"
	"sort"

	"github.com/jp-policy/jp-policy/internal/diag"
)

// Rule is the catalogue entry of one check. The fields are what `jp-policy
// rules`, docs/rules.md and SARIF rule metadata show.
type Rule struct {
	ID          string        `json:"id"`   // stable, e.g. JP101
	Name        string        `json:"name"` // kebab-case, e.g. external-inside-workspace
	Severity    diag.Severity `json:"severity"`
	Title       string        `json:"title"`       // one line
	Description string        `json:"description"` // why it matters
	Fix         string        `json:"fix"`         // how to make it go away
	// Suppressible is false for findings that would leave the policy
	// unsafe or differently enforced than written; neither a comment nor
	// --ignore hides them.
	Suppressible bool `json:"suppressible"`
	// Loader is true for findings produced by config.Load rather than by
	// a check in this package; they are catalogued here so every ID a user
	// can see is documented in one place.
	Loader bool `json:"loader,omitempty"`

	check func(p *pass) `json:"-"`
}

var registry = map[string]*Rule{}

// register adds r to the catalogue. It runs from init, so a duplicate or
// malformed entry is a programming error caught by every test run.
func register(r *Rule) {
	if _, dup := registry[r.ID]; dup {
		panic(fmt.Sprintf("lint: rule %s registered twice", r.ID))
	}
	if r.ID == "" || r.Name == "" || r.Title == "" || r.Description == "" || r.Fix == "" {
		panic(fmt.Sprintf("lint: rule %q lacks catalogue text", r.ID))
	}
	if !r.Loader && r.check == nil {
		panic(fmt.Sprintf("lint: rule %s has no check", r.ID))
	}
	registry[r.ID] = r
}

// Rules returns the whole catalogue sorted by ID. The entries are copies;
// changing them does not change what lint does.
func Rules() []Rule {
	out := make([]Rule, 0, len(registry))
	for _, r := range registry {
		c := *r
		c.check = nil
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Lookup returns the catalogue entry of id (exact, case-insensitive on the
// "JP" prefix) or false.
func Lookup(id string) (Rule, bool) {
	r, ok := registry[normalizeID(id)]
	if !ok {
		return Rule{}, false
	}
	c := *r
	c.check = nil
	return c, true
}

func normalizeID(id string) string {
	if len(id) >= 2 && (id[0] == 'j' || id[0] == 'J') && (id[1] == 'p' || id[1] == 'P') {
		return "JP" + id[2:]
	}
	return id
}

// UnknownRuleError is returned for an ID that names no rule.
type UnknownRuleError struct{ ID string }

func (e *UnknownRuleError) Error() string { return fmt.Sprintf("unknown rule %q", e.ID) }

// UnsuppressibleError is returned when asked to ignore a rule whose
// findings may not be hidden.
type UnsuppressibleError struct{ ID string }

func (e *UnsuppressibleError) Error() string {
	return fmt.Sprintf("rule %s cannot be suppressed: it reports a policy that is unsafe or not enforced as written", e.ID)
}

// ValidateIgnore checks the IDs given to --ignore: each must name a rule
// that may be suppressed. Callers treat a failure as a usage error.
func ValidateIgnore(ids []string) error {
	for _, id := range ids {
		r, ok := registry[normalizeID(id)]
		if !ok {
			return &UnknownRuleError{ID: id}
		}
		if !r.Suppressible {
			return &UnsuppressibleError{ID: r.ID}
		}
	}
	return nil
}

// Describe renders one rule as `jp-policy rules ID` prints it.
func Describe(r Rule) string {
	origin := "lint"
	if r.Loader {
		origin = "config loader"
	}
	sup := "yes: `# jp-policy: ignore " + r.ID + " -- reason` or --ignore " + r.ID
	if !r.Suppressible {
		sup = "no"
	}
	return fmt.Sprintf("%s %s (%s)\n\n%s\n\n%s\n\nFix: %s\n\nSeverity: %s. Reported by: %s. Suppressible: %s.\n",
		r.ID, r.Name, r.Severity, r.Title, r.Description, r.Fix, r.Severity, origin, sup)
}

// perMachine lists the rules whose findings depend on this machine's
// symlinks and approvals (RFD D43 keeps approvals per user and machine),
// so CI and a developer's machine can disagree about them.
var perMachine = map[string]bool{"JP105": true, "JP106": true, "JP124": true}

// PerMachine reports whether findings of rule id depend on this machine's
// state: `lint --portable` reports them as info, and a suppression of one
// is never reported as unused.
func PerMachine(id string) bool { return perMachine[normalizeID(id)] }
