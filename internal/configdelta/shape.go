package configdelta

import (
	"sort"
	"strings"
	"sync"
)

// kind is what jp-policy knows of a JP config field.
type kind uint8

const (
	kStruct  kind = iota // fixed field names (a schematic Config struct)
	kMap                 // user-chosen keys (IndexMap<String, T>)
	kVec                 // a Vec or MergeableVec field
	kScalar              // a value with no config fields below it
	kOpen                // JP has structure here that jp-policy does not model
	kModelID             // ModelIdOrAliasConfig: an alias string or {provider, name}
)

// vecCategory is RFD 070's claim granularity of a vec field, which says
// whether `path["identity"]` element removal exists for it.
type vecCategory uint8

const (
	vecUnknown   vecCategory = iota // not classified by RFD 070: whole-field only
	vecSetLike                      // per-element identity
	vecIdentity                     // per-element identity (tag/title or JSON)
	vecDuplicate                    // duplicates allowed: whole-field only
)

// shape is one node of jp-policy's model of JP's AppConfig.
type shape struct {
	kind   kind
	fields map[string]*shape // kStruct
	// loose marks a struct whose unlisted fields are open rather than
	// unknown (a tool entry: jp-policy models only some of its fields).
	loose bool
	elem  *shape // kMap: the entry shape
	// types lists the JSON types a kScalar accepts ("string", "integer",
	// "number", "boolean"); empty accepts any.
	types []string
	cat   vecCategory // kVec
	// mergeable marks a MergeableVec, which also accepts the object form
	// {value, strategy, dedup} and appends by default.
	mergeable bool
	itemTypes []string // kVec: JSON types of the items; empty = any
}

// appConfigFields is JP's AppConfig field list (`AppConfig::fields()` at
// dcdpr/jp 4c1c39f1), with each field's kind as far as RFD 070 and RFD 078
// describe it. A `*` segment is a map entry. Spec grammar:
//
//	"s" "i" "n" "b"  scalar of JSON type string, integer, number (integer
//	                 or float), boolean; "" = scalar of any type
//	"open"           JP structure jp-policy does not model
//	"map"            map of open entries
//	"id"             model id or alias
//	"vec:C[:m][:T]"  vec of category C (set, ident, dup, unk), m =
//	                 MergeableVec, T = item type letter
func appConfigFields() map[string]string {
	return map[string]string{
		"config_load_paths": "vec:set::s",
		"extends":           "vec:set",
		"inherit":           "b",
		"user.name":         "s",
		"template.values":   "map",

		"style":                   "open",
		"interrupt":               "open",
		"editor.cmd":              "",
		"editor.envs":             "vec:dup::s",
		"editor.inline.edit_mode": "",

		"providers.mcp":                               "map",
		"providers.llm.aliases":                       "map",
		"providers.llm.aliases.*":                     "id",
		"providers.llm.anthropic.api_key_env":         "s",
		"providers.llm.anthropic.base_url":            "s",
		"providers.llm.anthropic.beta_headers":        "vec:set::s",
		"providers.llm.anthropic.chain_on_max_tokens": "b",
		"providers.llm.cerebras":                      "open",
		"providers.llm.deepseek":                      "open",
		"providers.llm.google":                        "open",
		"providers.llm.llamacpp":                      "open",
		"providers.llm.ollama":                        "open",
		"providers.llm.openai":                        "open",
		"providers.llm.openrouter":                    "open",

		"plugins.auto_install":          "",
		"plugins.command":               "map",
		"plugins.shutdown_timeout_secs": "i",

		"conversation.attachments":      "vec:set:m",
		"conversation.default_id":       "s",
		"conversation.labels":           "map",
		"conversation.start_local":      "b",
		"conversation.tools":            "map",
		"conversation.title":            "open",
		"conversation.compaction.rules": "vec:dup",

		"conversation.inquiry.assistant.model":                  "open",
		"conversation.inquiry.assistant.request":                "open",
		"conversation.inquiry.assistant.system_prompt":          "",
		"conversation.inquiry.assistant.system_prompt_sections": "vec:ident:m",
		"conversation.inquiry.assistant.tool_choice":            "",

		"assistant.instructions":           "vec:ident:m",
		"assistant.name":                   "s",
		"assistant.system_prompt":          "",
		"assistant.system_prompt_sections": "vec:ident:m",
		"assistant.tool_choice":            "",
		"assistant.request":                "open",

		"assistant.model.id":                     "id",
		"assistant.model.parameters.max_tokens":  "i",
		"assistant.model.parameters.other":       "map",
		"assistant.model.parameters.reasoning":   "",
		"assistant.model.parameters.stop_words":  "vec:dup::s",
		"assistant.model.parameters.temperature": "n",
		"assistant.model.parameters.top_k":       "i",
		"assistant.model.parameters.top_p":       "n",
	}
}

// providerIDs are JP's ProviderId variants.
var providerIDs = []string{"anthropic", "cerebras", "deepseek", "google", "llamacpp", "ollama", "openai", "openrouter"}

// appConfig is built on first use, not at init: every jp-policy process
// links this package, and only `check config-delta` needs the model. (A
// package-level sync.OnceValue or map literal would itself be init work.)
func appConfig() *shape {
	appConfigOnce.Do(func() { appConfigOnce.v = buildShape(appConfigFields()) })
	return appConfigOnce.v
}

var appConfigOnce struct {
	sync.Once
	v *shape
}

func buildShape(spec map[string]string) *shape {
	root := &shape{kind: kStruct, fields: map[string]*shape{}}
	paths := make([]string, 0, len(spec))
	for p := range spec {
		paths = append(paths, p)
	}
	sort.Strings(paths) // parents before children
	for _, p := range paths {
		cur := root
		segs := strings.Split(p, ".")
		for i, seg := range segs {
			last := i == len(segs)-1
			if seg == "*" {
				if cur.kind != kMap {
					panic("configdelta: '*' under a non-map in " + p)
				}
				switch {
				case last:
					cur.elem = parseSpec(spec[p])
				case cur.elem == nil || cur.elem.kind == kOpen:
					// A map entry with some modelled fields: the rest
					// stays open.
					cur.elem = &shape{kind: kStruct, loose: true, fields: map[string]*shape{}}
				}
				cur = cur.elem
				continue
			}
			next := cur.fields[seg]
			if last {
				n := parseSpec(spec[p])
				if next != nil && n.kind == kMap && next.kind == kMap {
					n.elem = next.elem
				}
				next = n
			} else if next == nil {
				next = &shape{kind: kStruct, loose: cur.loose, fields: map[string]*shape{}}
			}
			if cur.kind == kStruct {
				cur.fields[seg] = next
			}
			cur = next
		}
	}
	return root
}

func scalarTypes(letter string) []string {
	switch letter {
	case "s":
		return []string{"string"}
	case "i":
		return []string{"integer"}
	case "n":
		return []string{"integer", "number"}
	case "b":
		return []string{"boolean"}
	}
	return nil
}

func parseSpec(s string) *shape {
	switch {
	case s == "open":
		return &shape{kind: kOpen}
	case s == "map":
		return &shape{kind: kMap, elem: &shape{kind: kOpen}}
	case s == "id":
		return &shape{kind: kModelID}
	case strings.HasPrefix(s, "vec:"):
		parts := strings.Split(s, ":")
		for len(parts) < 4 {
			parts = append(parts, "")
		}
		v := &shape{kind: kVec, mergeable: parts[2] == "m", itemTypes: scalarTypes(parts[3])}
		switch parts[1] {
		case "set":
			v.cat = vecSetLike
		case "ident":
			v.cat = vecIdentity
		case "dup":
			v.cat = vecDuplicate
		}
		return v
	}
	return &shape{kind: kScalar, types: scalarTypes(s)}
}

// lookup follows segments through the model. It returns the shape at the
// path (nil when the path is not a JP field) and whether the walk passed
// through a part jp-policy does not model, where any path is accepted.
func lookup(segs []string) (sh *shape, open bool) {
	cur := appConfig()
	for _, s := range segs {
		switch cur.kind {
		case kStruct:
			next, ok := cur.fields[s]
			if !ok {
				if cur.loose {
					return &shape{kind: kOpen}, true
				}
				return nil, false
			}
			cur = next
		case kMap:
			cur = cur.elem
		case kOpen:
			return cur, true
		case kModelID:
			if s != "provider" && s != "name" {
				return nil, false
			}
			cur = &shape{kind: kScalar, types: []string{"string"}}
		default:
			return nil, false
		}
	}
	return cur, cur.kind == kOpen
}

// fieldNames lists a struct's fields for did-you-mean help.
func (s *shape) fieldNames() []string {
	var out []string
	for k := range s.fields {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
