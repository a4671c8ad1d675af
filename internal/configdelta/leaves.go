package configdelta

import (
	"fmt"
	"slices"
	"strings"

	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/policy"
	"github.com/jp-policy/jp-policy/internal/suggest"
	"github.com/jp-policy/jp-policy/internal/tomlpos"
)

// Leaf is one concrete change an outcome asks for: a write of one config
// leaf (RFD 078 "Authorization check") or one unset entry.
type Leaf struct {
	Op   string // policy.ConfigWriteOp or policy.ConfigDelete
	Path string // the dotted path rules are matched against
	// Element is the identity of the one vec element a delete removes;
	// nil for a whole field.
	Element *string
	// Merge says how a vec write lands: "append", "prepend" or "replace"
	// for a MergeableVec, "" elsewhere.
	Merge   string
	Pointer string // where the value or unset entry is in the outcome
	Pos     diag.Position
	// Note explains a leaf jp-policy derived rather than read, such as an
	// alias it expanded or could not resolve.
	Note string
}

// Display is the leaf as RFD 070 spells it: the path, and for an element
// removal its ["identity"] suffix.
func (l Leaf) Display() string {
	if l.Element != nil {
		return l.Path + "[" + jsonString(*l.Element) + "]"
	}
	return l.Path
}

// Enumerate validates the outcome's config and unset entries against
// jp-policy's model of JP's config and returns the leaves they touch, in
// document order: writes first, then unsets. invalid holds the structural
// errors (the delta is then `invalid_config`); warnings hold values that
// are valid but change nothing (a null, which JP reads as "no change").
func Enumerate(o *Outcome, aliases *Aliases) (leaves []Leaf, invalid, warnings []*InvalidError) {
	w := &walker{aliases: aliases}
	if o.Config != nil {
		w.node(o.Config, appConfig(), nil, "/config")
		w.invalid = append(w.invalid, validateTools(o.Config, "/config")...)
	}
	for _, u := range o.Unset {
		w.unset(u)
	}
	return w.leaves, w.invalid, w.warnings
}

type walker struct {
	aliases  *Aliases
	leaves   []Leaf
	invalid  []*InvalidError
	warnings []*InvalidError
}

func (w *walker) bad(n *tomlpos.Node, ptr, msg, help string) {
	w.invalid = append(w.invalid, &InvalidError{Pos: n.Pos, Pointer: ptr, Message: msg, Help: help})
}

func (w *walker) leaf(n *tomlpos.Node, segs []string, ptr string) *Leaf {
	w.leaves = append(w.leaves, Leaf{Op: policy.ConfigWriteOp, Path: strings.Join(segs, "."), Pointer: ptr, Pos: n.Pos})
	return &w.leaves[len(w.leaves)-1]
}

func dotted(segs []string) string {
	if len(segs) == 0 {
		return "the config root"
	}
	return strings.Join(segs, ".")
}

// key checks that an object key can be a segment of a dotted config path;
// a key with a '.' could not be told apart from nesting, so no rule could
// address it.
func (w *walker) key(n *tomlpos.Node, k, ptr string) bool {
	pos := n.KeyPos
	if pos.IsZero() {
		pos = n.Pos
	}
	switch {
	case k == "":
		w.invalid = append(w.invalid, &InvalidError{Pos: pos, Pointer: ptr, Message: "empty key", Help: "config keys are non-empty names"})
		return false
	case k == "*":
		w.invalid = append(w.invalid, &InvalidError{Pos: pos, Pointer: ptr,
			Message: "a write to the '*' key cannot be checked: '*' in a config path is a rule wildcard, not a key a tool may write",
			Help:    "write the concrete key (for tool defaults, each tool's own entry)"})
		return false
	case strings.IndexFunc(k, badSegmentRune) >= 0:
		w.invalid = append(w.invalid, &InvalidError{Pos: pos, Pointer: ptr,
			Message: fmt.Sprintf("key %q cannot be part of a dotted config path (it holds '.', '[', ']', '\"', '*', whitespace or a control character)", k),
			Help:    "nest objects instead of writing dotted keys: {\"a\": {\"b\": 1}}, not {\"a.b\": 1}"})
		return false
	}
	return true
}

func (w *walker) null(n *tomlpos.Node, segs []string, ptr string) {
	w.warnings = append(w.warnings, &InvalidError{Pos: n.Pos, Pointer: ptr,
		Message: fmt.Sprintf("null at %s changes nothing: JP reads an absent or null field as \"keep\"", dotted(segs)),
		Help:    fmt.Sprintf("to remove the value, list %q in \"unset\"", dotted(segs))})
}

func (w *walker) node(n *tomlpos.Node, sh *shape, segs []string, ptr string) {
	if n.Kind == tomlpos.Null {
		w.null(n, segs, ptr)
		return
	}
	switch sh.kind {
	case kStruct:
		if n.Kind != tomlpos.Table {
			w.bad(n, ptr, fmt.Sprintf("%s is a group of fields in JP's config, not a %s", dotted(segs), n.Kind), "write an object with its fields")
			return
		}
		for _, k := range n.Keys {
			c, cptr := n.Fields[k], ptr+"/"+pointerToken(k)
			if !w.key(c, k, cptr) {
				continue
			}
			next, ok := sh.fields[k]
			if !ok && sh.loose {
				next, ok = &shape{kind: kOpen}, true
			}
			if !ok {
				pos := c.KeyPos
				if pos.IsZero() {
					pos = c.Pos
				}
				e := &InvalidError{Pos: pos, Pointer: cptr, Message: fmt.Sprintf("unknown config field %q", dotted(append(slices.Clip(segs), k)))}
				if s := suggest.Closest(k, sh.fieldNames()); len(s) > 0 {
					e.Help = fmt.Sprintf("did you mean %q?", s[0])
				} else {
					e.Help = "known fields: " + strings.Join(sh.fieldNames(), ", ")
				}
				w.invalid = append(w.invalid, e)
				continue
			}
			w.node(c, next, append(slices.Clip(segs), k), cptr)
		}
	case kMap, kOpen:
		if n.Kind != tomlpos.Table {
			if sh.kind == kMap {
				w.bad(n, ptr, fmt.Sprintf("%s is a map in JP's config, not a %s", dotted(segs), n.Kind), "write an object keyed by entry name")
				return
			}
			w.leaf(n, segs, ptr)
			return
		}
		if len(n.Keys) == 0 {
			// An empty object changes nothing in a map, but below one it
			// creates the entry: that is a write of the entry itself.
			if sh.kind == kOpen && len(segs) > 0 {
				w.leaf(n, segs, ptr)
			}
			return
		}
		for _, k := range n.Keys {
			c, cptr := n.Fields[k], ptr+"/"+pointerToken(k)
			if !w.key(c, k, cptr) {
				continue
			}
			next := sh
			if sh.kind == kMap {
				next = sh.elem
			}
			cs := append(slices.Clip(segs), k)
			if sh.kind == kMap && c.Kind == tomlpos.Table && len(c.Keys) == 0 && next.kind != kOpen {
				// A new, empty entry of a modelled map.
				w.leaf(c, cs, cptr)
				continue
			}
			w.node(c, next, cs, cptr)
		}
	case kScalar:
		if len(sh.types) > 0 && !typeOK(sh.types, n) {
			w.bad(n, ptr, fmt.Sprintf("%s must be %s, not %s", dotted(segs), strings.Join(sh.types, " or "), jsonKind(n)), "")
			return
		}
		w.leaf(n, segs, ptr)
	case kVec:
		w.vec(n, sh, segs, ptr)
	case kModelID:
		w.modelID(n, segs, ptr)
	}
}

var vecStrategies = []string{"append", "prepend", "replace"}

func (w *walker) vec(n *tomlpos.Node, sh *shape, segs []string, ptr string) {
	items, itemsPtr, merge := n, ptr, ""
	if sh.mergeable {
		merge = "append" // MergeableVec's plain-array form appends
	}
	if n.Kind == tomlpos.Table && sh.mergeable {
		items = nil
		for _, k := range n.Keys {
			c, cptr := n.Fields[k], ptr+"/"+pointerToken(k)
			switch k {
			case "value":
				items, itemsPtr = c, cptr
			case "strategy":
				if c.Kind != tomlpos.String || !contains(vecStrategies, c.Str) {
					w.bad(c, cptr, fmt.Sprintf("strategy must be one of %s", strings.Join(vecStrategies, ", ")), "")
					return
				}
				merge = c.Str
			case "dedup":
				if c.Kind != tomlpos.Bool && (c.Kind != tomlpos.String || c.Str != "inherit") {
					w.bad(c, cptr, "dedup must be true, false or \"inherit\"", "")
					return
				}
			default:
				w.bad(c, cptr, fmt.Sprintf("unknown key %q in the merge form of %s", k, dotted(segs)), "the merge form is {\"value\": [...], \"strategy\": \"append|prepend|replace\", \"dedup\": bool}")
				return
			}
		}
		if items == nil {
			w.bad(n, ptr, fmt.Sprintf("the merge form of %s needs \"value\"", dotted(segs)), "add \"value\": [...]")
			return
		}
	}
	if items.Kind != tomlpos.Array {
		help := ""
		if sh.mergeable {
			help = "write an array, or {\"value\": [...], \"strategy\": \"replace\"}"
		}
		w.bad(items, itemsPtr, fmt.Sprintf("%s is a list in JP's config, not a %s", dotted(segs), items.Kind), help)
		return
	}
	for i, it := range items.Items {
		if len(sh.itemTypes) > 0 && !typeOK(sh.itemTypes, it) {
			w.bad(it, fmt.Sprintf("%s/%d", itemsPtr, i), fmt.Sprintf("items of %s must be %s, not %s", dotted(segs), strings.Join(sh.itemTypes, " or "), jsonKind(it)), "")
			return
		}
	}
	l := w.leaf(items, segs, itemsPtr)
	l.Merge = merge
}

func contains(list []string, s string) bool {
	return slices.Contains(list, s)
}

// modelID expands a model id into its provider and name leaves (RFD 078
// "Alias resolution for union fields"): a rule granting only
// `...id.name` must not let an alias switch the provider.
func (w *walker) modelID(n *tomlpos.Node, segs []string, ptr string) {
	sub := func(s string) []string { return append(slices.Clip(segs), s) }
	switch n.Kind {
	case tomlpos.String:
		note := ""
		if provider, name, ok := strings.Cut(n.Str, "/"); ok {
			if !contains(providerIDs, provider) {
				w.bad(n, ptr, fmt.Sprintf("unknown provider %q in model id %q", provider, n.Str), "providers: "+strings.Join(providerIDs, ", "))
				return
			}
			if name == "" {
				w.bad(n, ptr, fmt.Sprintf("model id %q has no model name", n.Str), "write provider/name, e.g. anthropic/claude-sonnet-4-5")
				return
			}
		} else if len(segs) > 0 && segs[0] == "providers" {
			// An alias maps to a model id (ModelIdConfig), never to
			// another alias.
			w.bad(n, ptr, fmt.Sprintf("alias target %q is not provider/name", n.Str), "write provider/name, e.g. anthropic/claude-sonnet-4-5")
			return
		} else if n.Str == "" {
			w.bad(n, ptr, "empty model id", "write an alias or provider/name")
			return
		} else {
			note = w.aliases.describe(n.Str)
		}
		for _, f := range []string{"provider", "name"} {
			l := w.leaf(n, sub(f), ptr)
			l.Note = note
		}
	case tomlpos.Table:
		for _, k := range n.Keys {
			c, cptr := n.Fields[k], ptr+"/"+pointerToken(k)
			switch {
			case k != "provider" && k != "name":
				w.bad(c, cptr, fmt.Sprintf("unknown field %q in model id %s", k, dotted(segs)), "a model id has provider and name")
			case c.Kind == tomlpos.Null:
				w.null(c, sub(k), cptr)
			case c.Kind != tomlpos.String:
				w.bad(c, cptr, fmt.Sprintf("%s must be a string, not %s", dotted(sub(k)), jsonKind(c)), "")
			case k == "provider" && !contains(providerIDs, c.Str):
				w.bad(c, cptr, fmt.Sprintf("unknown variant %q: expected one of %s", c.Str, strings.Join(providerIDs, ", ")), "")
			default:
				w.leaf(c, sub(k), cptr)
			}
		}
	default:
		w.bad(n, ptr, fmt.Sprintf("%s must be an alias string or {\"provider\", \"name\"}, not %s", dotted(segs), jsonKind(n)), "")
	}
}

// unset validates one unset entry (RFD 078: the base path exists and its
// type supports unsetting; element removal only on vecs RFD 070 gives an
// element identity) and records it as a delete leaf.
func (w *walker) unset(u UnsetEntry) {
	bad := func(msg, help string) {
		w.invalid = append(w.invalid, &InvalidError{Pos: u.Pos, Pointer: u.Pointer, Message: msg, Help: help})
	}
	segs := u.Path.Segments
	sh, open := lookup(segs)
	if sh == nil {
		parent, _ := lookup(segs[:len(segs)-1])
		help := ""
		if parent != nil && parent.kind == kStruct {
			if s := suggest.Closest(segs[len(segs)-1], parent.fieldNames()); len(s) > 0 {
				help = fmt.Sprintf("did you mean %q?", strings.Join(append(segs[:len(segs)-1:len(segs)-1], s[0]), "."))
			}
		}
		bad(fmt.Sprintf("unset of unknown config field %q", u.Path.Path()), help)
		return
	}
	parent, _ := lookup(segs[:len(segs)-1])
	entry := parent != nil && parent.kind == kMap
	if u.Path.Element != nil {
		if open || sh.kind != kVec || (sh.cat != vecSetLike && sh.cat != vecIdentity) {
			bad(fmt.Sprintf("%s has no element identity: RFD 070 defines path[\"identity\"] removal only on set-like and identity-bearing vec fields", u.Path.Path()),
				fmt.Sprintf("unset the whole field with %q, then write the value you want", u.Path.Path()))
			return
		}
	} else if sh.kind == kStruct && !entry && !open {
		bad(fmt.Sprintf("%s is a group of fields and cannot be unset as a whole", u.Path.Path()),
			"unset the fields below it one by one: "+strings.Join(sh.fieldNames(), ", "))
		return
	}
	w.leaves = append(w.leaves, Leaf{Op: policy.ConfigDelete, Path: u.Path.Path(), Element: u.Path.Element, Pointer: u.Pointer, Pos: u.Pos})
}

// jsonKind names a node's type in JSON's words: tomlpos says "table" and
// "float" where an outcome author wrote an object and a number.
func jsonKind(n *tomlpos.Node) string {
	switch n.Kind {
	case tomlpos.Table:
		return "object"
	case tomlpos.Float:
		return "number"
	}
	return n.Kind.String()
}

func typeOK(types []string, n *tomlpos.Node) bool {
	k := jsonKind(n)
	return slices.Contains(types, k)
}
