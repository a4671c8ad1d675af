package approvals

import (
	"errors"
	"path/filepath"
	"testing"
	"time"
)

func TestReview(t *testing.T) {
	now := time.Date(2026, 5, 26, 13, 0, 0, 0, time.UTC)
	cands := []Candidate{{"a", "/t/a"}, {"b", "/t/b2"}, {"c", "/t/c"}}
	seed := func(path string) *Store {
		s := New(path)
		s.Approve("a", "/t/a", now)
		s.Approve("b", "/t/b", now)
		return s
	}
	yes := func(Candidate, string) (bool, error) { return true, nil }
	no := func(Candidate, string) (bool, error) { return false, nil }
	tests := []struct {
		name  string
		path  bool
		ask   Ask
		want  []Verdict
		saved bool
	}{
		{"no one to ask", true, nil, []Verdict{Trusted, NotApproved, NotApproved}, false},
		{"user says yes", true, yes, []Verdict{Trusted, Trusted, Trusted}, true},
		{"user says no", true, no, []Verdict{Trusted, Declined, Declined}, false},
		{"no storage: not asked", false, yes, []Verdict{Trusted, NoStorage, NoStorage}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := ""
			if tc.path {
				path = filepath.Join(t.TempDir(), FileName)
			}
			s := seed(path)
			ds, err := Review(s, cands, tc.ask, now)
			if err != nil {
				t.Fatal(err)
			}
			for i, d := range ds {
				if d.Verdict != tc.want[i] {
					t.Errorf("%s: %v, want %v", d.RulePath, d.Verdict, tc.want[i])
				}
			}
			if ds[1].Previous != "/t/b" || ds[2].Previous != "" {
				t.Errorf("previous: %+v", ds)
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
			}
		})
	}
	boom := errors.New("boom")
	if _, err := Review(seed(filepath.Join(t.TempDir(), FileName)), cands, func(Candidate, string) (bool, error) { return false, boom }, now); !errors.Is(err, boom) {
		t.Errorf("ask error: %v", err)
	}
}
