package config

import (
	"reflect"
	"testing"

	"github.com/jp-policy/jp-policy/internal/diag"
)

func strs(items ...string) []Str {
	out := []Str{}
	for i, s := range items {
		out = append(out, Str{Value: s, Pos: diag.Position{File: "f", Line: i + 1}})
	}
	return out
}

func values(s []Str) []string {
	if s == nil {
		return nil
	}
	out := []string{}
	for _, v := range s {
		out = append(out, v.Value)
	}
	return out
}

func TestMergeVec(t *testing.T) {
	yes, no := true, false
	on := vecMeta{set: true}
	tests := []struct {
		name     string
		prev     []string
		meta     vecMeta
		in       vecInput[Str]
		want     []string
		wantMeta vecMeta
		replaced int
	}{
		{"plain array appends", []string{"a"}, on, vecInput[Str]{items: strs("b"), strategy: strategyAppend}, []string{"a", "b"}, on, 0},
		{"prepend", []string{"a"}, on, vecInput[Str]{items: strs("b"), strategy: strategyPrepend}, []string{"b", "a"}, on, 0},
		{"replace", []string{"a"}, on, vecInput[Str]{items: strs("b"), strategy: strategyReplace}, []string{"b"}, on, 1},
		{"replace with nothing before records nothing", nil, vecMeta{}, vecInput[Str]{items: strs("b"), strategy: strategyReplace}, []string{"b"}, on, 0},
		{"empty replace declares an empty list", []string{"a"}, on, vecInput[Str]{items: []Str{}, strategy: strategyReplace}, []string{}, on, 1},
		{"discard drops prev whatever the strategy", []string{"a"}, vecMeta{set: true, discard: true}, vecInput[Str]{items: strs("b"), strategy: strategyAppend}, []string{"b"}, on, 1},
		{"discard carries to the next layer", []string{"a"}, on, vecInput[Str]{items: strs("b"), strategy: strategyAppend, discard: true}, []string{"a", "b"}, vecMeta{set: true, discard: true}, 0},
		// JP: test_dedup_removes_duplicates_on_append.
		{"dedup keeps first", []string{"a", "b"}, on, vecInput[Str]{items: strs("b", "a", "c"), dedup: &yes}, []string{"a", "b", "c"}, vecMeta{set: true, dedup: true}, 0},
		// JP: test_dedup_sticky_across_non_discarded_merges.
		{"dedup is sticky", []string{"a"}, vecMeta{set: true, dedup: true}, vecInput[Str]{items: strs("a")}, []string{"a"}, vecMeta{set: true, dedup: true}, 0},
		// types/vec.rs: sticky "unless a later config explicitly sets it to false".
		{"explicit dedup false switches a sticky dedup off", []string{"a"}, vecMeta{set: true, dedup: true}, vecInput[Str]{items: strs("a"), dedup: &no}, []string{"a", "a"}, on, 0},
		// JP: test_no_dedup_without_flag.
		{"dedup inherit off keeps duplicates", []string{"a"}, on, vecInput[Str]{items: strs("a")}, []string{"a", "a"}, on, 0},
		// JP: test_discard_inherits_dedup_when_next_has_no_opinion.
		{"discarded value hands its dedup on", []string{}, vecMeta{set: true, dedup: true, discard: true}, vecInput[Str]{items: strs("1", "2", "1", "3")}, []string{"1", "2", "3"}, vecMeta{set: true, dedup: true}, 0},
		// JP: test_discard_does_not_inherit_dedup_when_next_opts_out.
		{"discarded dedup yields to an explicit false", []string{}, vecMeta{set: true, dedup: true, discard: true}, vecInput[Str]{items: strs("1", "2", "1", "3"), dedup: &no}, []string{"1", "2", "1", "3"}, on, 0},
		// JP's merge function runs only when both sides have a value: the
		// first declaration is kept as written, its dedup applied later.
		{"first value is not deduplicated yet", nil, vecMeta{}, vecInput[Str]{items: strs("a", "a"), dedup: &yes}, []string{"a", "a"}, vecMeta{set: true, dedup: true}, 0},
		// JP: test_default_vec, "default stacking": a discarded default
		// replaced by another default, which stays discardable.
		{"test_default_vec: default stacking", []string{"1"}, vecMeta{set: true, discard: true}, vecInput[Str]{items: strs("2"), strategy: strategyAppend, discard: true}, []string{"2"}, vecMeta{set: true, discard: true}, 1},
		// JP: test_default_vec, "next as default": appended, and the
		// result is discardable.
		{"test_default_vec: next as default", []string{"1"}, on, vecInput[Str]{items: strs("2"), strategy: strategyAppend, discard: true}, []string{"1", "2"}, vecMeta{set: true, discard: true}, 0},
		// JP: vec_with_strategy with next = MergeableVec::default() (an
		// access table without the list): a discarded prev is dropped,
		// the empty next is no default, dedup carries on.
		{"vec_with_strategy: implicit empty next drops a default", []string{"1"}, vecMeta{set: true, discard: true, dedup: true}, implicitVec[Str](diag.Position{}), []string{}, vecMeta{set: true, dedup: true}, 1},
		{"vec_with_strategy: implicit empty next appends nothing", []string{"1"}, on, implicitVec[Str](diag.Position{}), []string{"1"}, on, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &Access{}
			meta := tc.meta
			var prev []Str
			if tc.prev != nil {
				prev = strs(tc.prev...)
			}
			got := mergeVec(a, "x", prev, &meta, tc.in, func(s Str) string { return s.Value }, func(s Str) diag.Position { return s.Pos })
			if !reflect.DeepEqual(values(got), tc.want) {
				t.Errorf("got %v, want %v", values(got), tc.want)
			}
			if meta != tc.wantMeta {
				t.Errorf("meta %+v, want %+v", meta, tc.wantMeta)
			}
			if len(a.Replaced) != tc.replaced {
				t.Errorf("replaced %d, want %d", len(a.Replaced), tc.replaced)
			}
		})
	}
}

func TestMergeVecDoesNotAlias(t *testing.T) {
	prev := strs("a", "b")
	meta := vecMeta{set: true, dedup: true}
	in := vecInput[Str]{items: strs("a")}
	_ = mergeVec(&Access{}, "x", prev[:1], &meta, in, func(s Str) string { return s.Value }, func(s Str) diag.Position { return s.Pos })
	if prev[1].Value != "b" {
		t.Fatalf("merge wrote into the previous layer's backing array: %v", values(prev))
	}
}
