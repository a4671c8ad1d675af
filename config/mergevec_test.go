package config

import (
	"reflect"
	"testing"

	"github.com/jp-policy/jp-policy/diag"
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
	tests := []struct {
		name     string
		prev     []string
		meta     vecMeta
		in       vecInput[Str]
		want     []string
		wantMeta vecMeta
		replaced int
	}{
		{"plain array appends", []string{"a"}, vecMeta{}, vecInput[Str]{items: strs("b"), strategy: strategyAppend}, []string{"a", "b"}, vecMeta{}, 0},
		{"prepend", []string{"a"}, vecMeta{}, vecInput[Str]{items: strs("b"), strategy: strategyPrepend}, []string{"b", "a"}, vecMeta{}, 0},
		{"replace", []string{"a"}, vecMeta{}, vecInput[Str]{items: strs("b"), strategy: strategyReplace}, []string{"b"}, vecMeta{}, 1},
		{"replace with nothing before records nothing", nil, vecMeta{}, vecInput[Str]{items: strs("b"), strategy: strategyReplace}, []string{"b"}, vecMeta{}, 0},
		{"empty replace declares an empty list", []string{"a"}, vecMeta{}, vecInput[Str]{items: []Str{}, strategy: strategyReplace}, []string{}, vecMeta{}, 1},
		{"discard drops prev whatever the strategy", []string{"a"}, vecMeta{discard: true}, vecInput[Str]{items: strs("b"), strategy: strategyAppend}, []string{"b"}, vecMeta{}, 1},
		{"discard carries to the next layer", []string{"a"}, vecMeta{}, vecInput[Str]{items: strs("b"), strategy: strategyAppend, discard: true}, []string{"a", "b"}, vecMeta{discard: true}, 0},
		{"dedup keeps first", []string{"a", "b"}, vecMeta{}, vecInput[Str]{items: strs("b", "a", "c"), dedup: &yes}, []string{"a", "b", "c"}, vecMeta{dedup: true}, 0},
		{"dedup is sticky", []string{"a"}, vecMeta{dedup: true}, vecInput[Str]{items: strs("a"), dedup: &no}, []string{"a"}, vecMeta{dedup: true}, 0},
		{"dedup inherit off keeps duplicates", []string{"a"}, vecMeta{}, vecInput[Str]{items: strs("a")}, []string{"a", "a"}, vecMeta{}, 0},
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
	meta := vecMeta{dedup: true}
	in := vecInput[Str]{items: strs("a")}
	_ = mergeVec(&Access{}, "x", prev[:1], &meta, in, func(s Str) string { return s.Value }, func(s Str) diag.Position { return s.Pos })
	if prev[1].Value != "b" {
		t.Fatalf("merge wrote into the previous layer's backing array: %v", values(prev))
	}
}
