package lint

import (
	"fmt"

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
	// Origin names the command that reports a finding this package has no
	// check for (JP131: `lint --conversations`, which compiles every
	// stored conversation); "" for lint's own checks and the loader's.
	Origin string `json:"origin,omitempty"`

	check func(p *pass) `json:"-"`
}

// catalogue is every rule, sorted by ID. It is data the linker lays out:
// each rule is a package-level value in its own file, nothing is built at
// init (every jp-policy start ran 31 registrations into a map before).
// TestCatalogue checks what registration used to: IDs unique and sorted,
// catalogue text present, a check for every rule that is not the
// loader's.
var catalogue = [...]*Rule{
	&ruleJP001,
	&ruleJP002,
	&ruleJP003,
	&ruleJP004,
	&ruleJP005,
	&ruleJP006,
	&ruleJP007,
	&ruleJP101,
	&ruleJP102,
	&ruleJP103,
	&ruleJP104,
	&ruleJP105,
	&ruleJP106,
	&ruleJP107,
	&ruleJP108,
	&ruleJP109,
	&ruleJP110,
	&ruleJP111,
	&ruleJP112,
	&ruleJP113,
	&ruleJP114,
	&ruleJP115,
	&ruleJP116,
	&ruleJP117,
	&ruleJP118,
	&ruleJP119,
	&ruleJP120,
	&ruleJP121,
	&ruleJP122,
	&ruleJP123,
	&ruleJP124,
	&ruleJP125,
	&ruleJP126,
	&ruleJP130,
	&ruleJP131,
	&ruleJP132,
	&ruleJP140,
	&ruleJP141,
	&ruleJP142,
}

// rule returns the catalogue entry of an exact ID, or nil.
func rule(id string) *Rule {
	lo, hi := 0, len(catalogue)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch c := catalogue[m].ID; {
		case c == id:
			return catalogue[m]
		case c < id:
			lo = m + 1
		default:
			hi = m
		}
	}
	return nil
}

// ruleOK is rule with a found flag.
func ruleOK(id string) (*Rule, bool) {
	r := rule(id)
	return r, r != nil
}

// Rules returns the whole catalogue sorted by ID. The entries are copies;
// changing them does not change what lint does.
func Rules() []Rule {
	out := make([]Rule, len(catalogue))
	for i, r := range catalogue {
		out[i] = *r
		out[i].check = nil
	}
	return out
}

// Lookup returns the catalogue entry of id (exact, case-insensitive on the
// "JP" prefix) or false.
func Lookup(id string) (Rule, bool) {
	r := rule(normalizeID(id))
	if r == nil {
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
		r := rule(normalizeID(id))
		if r == nil {
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
func perMachine(id string) bool {
	switch id {
	case "JP105", "JP106", "JP124":
		return true
	}
	return false
}

// PerMachine reports whether findings of rule id depend on this machine's
// state: `lint --portable` reports them as info, and a suppression of one
// is never reported as unused.
func PerMachine(id string) bool { return perMachine(normalizeID(id)) }
