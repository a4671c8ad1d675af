package config

import (
	"slices"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/tomlpos"
)

// Strategies of JP's MergeableVec. A plain array appends: that is what
// JP's merge code does (its doc comment saying "replace" is stale).
const (
	strategyAppend  = "append"
	strategyPrepend = "prepend"
	strategyReplace = "replace"
)

// vecInput is one layer's value of a MergeableVec list.
type vecInput[T any] struct {
	pos      diag.Position
	items    []T
	strategy string
	dedup    *bool // nil: "inherit" or absent
	discard  bool
	// implicit marks the empty list of an access table that did not name
	// the list (merger.implicit).
	implicit bool
}

// parseVec reads either form of a MergeableVec: a plain array, or the
// table { strategy, value, dedup, discard_when_merged }. Elements that do
// not decode are skipped (the schema has reported them).
func parseVec[T any](n *tomlpos.Node, decode func(*tomlpos.Node) (T, bool)) (vecInput[T], bool) {
	in := vecInput[T]{pos: written(n), strategy: strategyAppend}
	var arr *tomlpos.Node
	switch n.Kind {
	case tomlpos.Array:
		arr = n
	case tomlpos.Table:
		if s := n.Get("strategy"); s != nil && s.Kind == tomlpos.String {
			switch s.Str {
			case strategyAppend, strategyPrepend, strategyReplace:
				in.strategy = s.Str
			default:
				return in, false
			}
		}
		if d := n.Get("dedup"); d != nil && d.Kind == tomlpos.Bool {
			b := d.Bool
			in.dedup = &b
		}
		if d := n.Get("discard_when_merged"); d != nil && d.Kind == tomlpos.Bool {
			in.discard = d.Bool
		}
		arr = n.Get("value")
		if arr != nil && arr.Kind != tomlpos.Array {
			return in, false
		}
	default:
		return in, false
	}
	in.items = []T{}
	if arr != nil {
		in.items = make([]T, 0, len(arr.Items))
		for _, it := range arr.Items {
			if v, ok := decode(it); ok {
				in.items = append(in.items, v)
			}
		}
	}
	return in, true
}

// mergeVec merges one layer's value into the accumulated list with JP's
// MergeableVec semantics (vec_with_strategy in JP's
// crates/jp_config/src/internal/merge/vec.rs):
//
//   - The first value declared for a list is taken as written: JP's merge
//     function runs only when both sides have a value, so not even its own
//     dedup = true is applied to it yet.
//   - Whether to deduplicate is the new layer's explicit dedup when it
//     has one (an explicit false switches a sticky true off), else the
//     previous value's, and this holds after a discard too: a discarded
//     value still hands its dedup on when the next layer has no opinion.
//   - A previous value marked discard_when_merged is dropped whatever the
//     new strategy; otherwise append, prepend or replace.
//   - Deduplication keeps the first of equal rules.
func mergeVec[T any](a *Access, list string, prev []T, meta *vecMeta, in vecInput[T], key func(T) string, pos func(T) diag.Position) []T {
	if !meta.set {
		// in.items is parseVec's own new slice: no copy needed.
		out := in.items
		if out == nil {
			out = []T{}
		}
		*meta = vecMeta{set: true, dedup: in.dedup != nil && *in.dedup, discard: in.discard}
		return out
	}
	var out []T
	dropped := func(reason string) {
		if len(prev) == 0 {
			return
		}
		r := Replacement{List: list, By: in.pos, Reason: reason, Implicit: in.implicit, Empty: len(in.items) == 0}
		for _, p := range prev {
			r.Dropped = append(r.Dropped, pos(p))
		}
		a.Replaced = append(a.Replaced, r)
	}
	dedup := meta.dedup
	if in.dedup != nil {
		dedup = *in.dedup
	}
	switch {
	case meta.discard:
		dropped("discard_when_merged")
		out = slices.Clone(in.items)
	case in.strategy == strategyReplace:
		dropped(strategyReplace)
		out = slices.Clone(in.items)
	case in.strategy == strategyPrepend:
		out = append(slices.Clone(in.items), prev...)
	default:
		out = append(slices.Clone(prev), in.items...)
	}
	if dedup {
		seen := make(map[string]bool, len(out))
		kept := out[:0]
		for _, v := range out {
			k := key(v)
			if !seen[k] {
				seen[k] = true
				kept = append(kept, v)
			}
		}
		out = kept
	}
	if out == nil {
		out = []T{}
	}
	meta.dedup = dedup
	meta.discard = in.discard
	return out
}
