package approvals

import (
	"errors"
	"path/filepath"
	"testing"
	"time"
)

func TestReview(t *testing.T) {
	now := time.Date(2026, 5, 26, 13, 0, 0, 0, time.UTC)
	// a: approved here; b: retargeted; c: new; d: approved only in
	// another workspace sharing the id; e: written by hand (no workspace).
	cands := []Candidate{{"a", "/t/a"}, {"b", "/t/b2"}, {"c", "/t/c"}, {"d", "/t/d"}, {"e", "/t/e"}}
	seed := func(path string) *Store {
		s := New(path)
		s.Approve("a", "/t/a", "/ws", now)
		s.Approve("b", "/t/b", "/ws", now)
		s.Approve("d", "/t/d", "/other", now)
		s.entries["e"] = Entry{RulePath: "e", CanonicalTarget: "/t/e", ApprovedAt: now}
		return s
	}
	yes := func(Decision) (bool, error) { return true, nil }
	no := func(Decision) (bool, error) { return false, nil }
	tests := []struct {
		name  string
		path  bool
		ask   Ask
		want  []Verdict
		saved bool
	}{
		{"no one to ask", true, nil, []Verdict{Trusted, NotApproved, NotApproved, NotApproved, Trusted}, false},
		{"user says yes", true, yes, []Verdict{Trusted, Trusted, Trusted, Trusted, Trusted}, true},
		{"user says no", true, no, []Verdict{Trusted, Declined, Declined, Declined, Trusted}, false},
		{"no storage: not asked", false, yes, []Verdict{Trusted, NoStorage, NoStorage, NoStorage, Trusted}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := ""
			if tc.path {
				path = filepath.Join(t.TempDir(), FileName)
			}
			s := seed(path)
			ds, err := Review(s, "/ws", cands, tc.ask, now)
			if err != nil {
				t.Fatal(err)
			}
			for i, d := range ds {
				if d.Verdict != tc.want[i] {
					t.Errorf("%s: %v, want %v", d.RulePath, d.Verdict, tc.want[i])
				}
			}
			if ds[1].Previous != "/t/b" || ds[2].Previous != "" || ds[3].Previous != "" {
				t.Errorf("previous: %+v", ds)
			}
			if len(ds[3].ApprovedIn) != 1 || ds[3].ApprovedIn[0] != "/other" || ds[1].ApprovedIn != nil {
				t.Errorf("approved in: %+v", ds)
			}
			if path != "" {
				l, _, err := Load(path)
				if err != nil {
					t.Fatal(err)
				}
				_, ok := l.Lookup("c")
				if ok != tc.saved {
					t.Errorf("saved %v, want %v", ok, tc.saved)
				}
				// Saying yes to d in this workspace adds it to d's
				// workspaces; the other one keeps its approval.
				if tc.saved {
					if st := l.Classify("d", "/t/d", "/other"); st.Kind != Approved {
						t.Errorf("d in /other after approving here: %v", st.Kind)
					}
					if st := l.Classify("d", "/t/d", "/ws"); st.Kind != Approved {
						t.Errorf("d here after approving here: %v", st.Kind)
					}
				}
			}
		})
	}
	boom := errors.New("boom")
	if _, err := Review(seed(filepath.Join(t.TempDir(), FileName)), "/ws", cands, func(Decision) (bool, error) { return false, boom }, now); !errors.Is(err, boom) {
		t.Errorf("ask error: %v", err)
	}
}
