package lint

import "testing"

// TestCatalogue checks what registering the rules at init used to check
// on every run: IDs unique and sorted (rule() searches by halving),
// catalogue text present, a check for every rule not the loader's.
func TestCatalogue(t *testing.T) {
	for i, r := range catalogue {
		if i > 0 && catalogue[i-1].ID >= r.ID {
			t.Errorf("catalogue: %s after %s: keep it sorted by ID, each ID once", r.ID, catalogue[i-1].ID)
		}
		if r.ID == "" || r.Name == "" || r.Title == "" || r.Description == "" || r.Fix == "" {
			t.Errorf("rule %q lacks catalogue text", r.ID)
		}
		if !r.Loader && r.Origin == "" && r.check == nil {
			t.Errorf("rule %s has no check", r.ID)
		}
		if got := rule(r.ID); got != r {
			t.Errorf("rule(%q) = %v", r.ID, got)
		}
	}
	for _, id := range []string{"", "JP000", "JP100", "JP999", "jp101", "JP1010"} {
		if r := rule(id); r != nil {
			t.Errorf("rule(%q) = %s, want none", id, r.ID)
		}
	}
}
