package landlock

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/emit/internal/emittest"
	"github.com/jp-policy/jp-policy/internal/plan"
	ll "github.com/jp-policy/jp-policy/internal/plan/landlock"
)

// TestSplitJoinBase: a manifest laid out as its file (SplitBase) holds no
// baseline and only IDs for the shared clauses, and ll.JoinBase with the
// shared base gives back exactly what Build built, for every scenario
// (with and without net rules: a clause that differs from the shared one
// of its ID stays whole in the file).
func TestSplitJoinBase(t *testing.T) {
	base := NewBase()
	for _, sc := range emittest.Scenarios(t) {
		m, err := Build(sc.Tool)
		if err != nil {
			t.Fatal(err)
		}
		file, err := SplitBase(m, base)
		if err != nil {
			t.Fatalf("%s: %v", sc.Name, err)
		}
		if len(file.Baseline) != 0 {
			t.Errorf("%s: the file keeps %d baseline rules", sc.Name, len(file.Baseline))
		}
		refs := 0
		for _, c := range file.Clauses {
			if c.Status == "" {
				refs++
			}
		}
		if refs == 0 {
			t.Errorf("%s: no clause refers to the shared base", sc.Name)
		}
		// Through JSON, as exec reads it.
		b, err := json.Marshal(file)
		if err != nil {
			t.Fatal(err)
		}
		var read ll.Manifest
		if err := json.Unmarshal(b, &read); err != nil {
			t.Fatal(err)
		}
		if err := ll.JoinBase(&read, base); err != nil {
			t.Fatalf("%s: %v", sc.Name, err)
		}
		if !reflect.DeepEqual(&read, m) {
			t.Errorf("%s: joined manifest differs from the built one", sc.Name)
		}
	}
}

// TestJoinBaseRefuses: a reference the base lacks, a reference with
// anything beside its ID, a manifest with a baseline of its own, and a
// base of another format are refused, never run with a clause or grant
// missing or doubled.
func TestJoinBaseRefuses(t *testing.T) {
	base := NewBase()
	sc := emittest.Scenarios(t)[0]
	m, err := Build(sc.Tool)
	if err != nil {
		t.Fatal(err)
	}
	file, err := SplitBase(m, base)
	if err != nil {
		t.Fatal(err)
	}
	clone := func() *ll.Manifest {
		b, _ := json.Marshal(file)
		var c ll.Manifest
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatal(err)
		}
		return &c
	}
	if err := ll.JoinBase(clone(), base); err != nil {
		t.Fatalf("positive control: %v", err)
	}
	unknown := clone()
	unknown.Clauses = append(unknown.Clauses, plan.Clause{ID: "baseline.nope"})
	own := clone()
	own.Baseline = []ll.PathRule{{Path: "/", Access: []string{ll.ReadFile}, Clause: "baseline.runtime"}}
	half := clone()
	for i, c := range half.Clauses {
		if c.Status == "" {
			half.Clauses[i].What = "something else"
			break
		}
	}
	old := *base
	old.Version = ll.FormatVersion - 1
	for name, tc := range map[string]struct {
		m    *ll.Manifest
		base *ll.Base
		want string
	}{
		"unknown reference":   {unknown, base, "baseline.nope"},
		"own baseline":        {own, base, "baseline of its own"},
		"reference with text": {half, base, "neither complete nor in the shared base"},
		"older base":          {clone(), &old, "shared base format"},
	} {
		if err := ll.JoinBase(tc.m, tc.base); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %q", name, err, tc.want)
		}
	}
}
