package config

import (
	"math"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/jp-policy/jp-policy/tomlpos"
)

// fastChecker proves a document valid against the embedded schema without
// the cost of the full validator, which builds error trees for every
// object and dominates loading time on large configs. It reads the tree
// directly (no conversion to plain values), interprets the schema document
// itself, so there is still one source of truth, and answers true only
// when every keyword involved is one it implements; anything else (an
// unknown keyword, a float where an integer is wanted, a NaN) is "not
// proven", and the full validator then runs and reports the findings.
// FuzzFastCheck checks that it never accepts what the validator rejects.
type fastChecker struct {
	root     map[string]any
	patterns sync.Map // string -> *regexp.Regexp
}

// annotations carry no constraint.
var annotations = map[string]bool{"$schema": true, "$id": true, "$defs": true, "title": true, "description": true}

func (c *fastChecker) valid(s map[string]any, v *tomlpos.Node) bool {
	for kw, arg := range s {
		if annotations[kw] {
			continue
		}
		if !c.keyword(s, kw, arg, v) {
			return false
		}
	}
	return true
}

func (c *fastChecker) keyword(s map[string]any, kw string, arg any, v *tomlpos.Node) bool {
	switch kw {
	case "$ref":
		ref, _ := arg.(string)
		target := c.resolve(ref)
		return target != nil && c.valid(target, v)
	case "type":
		switch t := arg.(type) {
		case string:
			return hasType(t, v)
		case []any:
			for _, x := range t {
				if name, ok := x.(string); ok && hasType(name, v) {
					return true
				}
			}
		}
		return false
	case "properties":
		if v.Kind != tomlpos.Table {
			return true
		}
		props, _ := arg.(map[string]any)
		for k, sub := range props {
			if val, present := v.Fields[k]; present {
				if sm, ok := sub.(map[string]any); !ok || !c.valid(sm, val) {
					return false
				}
			}
		}
		return true
	case "additionalProperties":
		if v.Kind != tomlpos.Table {
			return true
		}
		props, _ := s["properties"].(map[string]any)
		for k, val := range v.Fields {
			if _, known := props[k]; known {
				continue
			}
			switch a := arg.(type) {
			case bool:
				if !a {
					return false
				}
			case map[string]any:
				if !c.valid(a, val) {
					return false
				}
			default:
				return false
			}
		}
		return true
	case "items":
		if v.Kind != tomlpos.Array {
			return true
		}
		sub, ok := arg.(map[string]any)
		if !ok {
			return false
		}
		for _, it := range v.Items {
			if !c.valid(sub, it) {
				return false
			}
		}
		return true
	case "required":
		if v.Kind != tomlpos.Table {
			return true
		}
		names, _ := arg.([]any)
		for _, n := range names {
			name, _ := n.(string)
			if _, present := v.Fields[name]; !present {
				return false
			}
		}
		return true
	case "enum":
		opts, _ := arg.([]any)
		for _, o := range opts {
			switch ov := o.(type) {
			case string:
				if v.Kind == tomlpos.String && v.Str == ov {
					return true
				}
			case bool:
				if v.Kind == tomlpos.Bool && v.Bool == ov {
					return true
				}
			}
		}
		return false
	case "minimum", "maximum":
		bound, ok := arg.(float64)
		if !ok {
			return false
		}
		var x float64
		switch v.Kind {
		case tomlpos.Integer:
			x = float64(v.Int)
		case tomlpos.Float:
			if math.IsNaN(v.Float) || math.IsInf(v.Float, 0) {
				return false
			}
			x = v.Float
		default:
			return true
		}
		if kw == "minimum" {
			return x >= bound
		}
		return x <= bound
	case "minLength":
		n, ok := arg.(float64)
		if !ok {
			return false
		}
		return v.Kind != tomlpos.String || float64(utf8.RuneCountInString(v.Str)) >= n
	case "pattern":
		if v.Kind != tomlpos.String {
			return true
		}
		p, _ := arg.(string)
		re, err := c.pattern(p)
		return err == nil && re.MatchString(v.Str)
	}
	return false // not a keyword this checker knows: not proven
}

func (c *fastChecker) resolve(ref string) map[string]any {
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok || strings.ContainsAny(name, "/~%") {
		return nil
	}
	defs, _ := c.root["$defs"].(map[string]any)
	target, _ := defs[name].(map[string]any)
	return target
}

func (c *fastChecker) pattern(p string) (*regexp.Regexp, error) {
	if re, ok := c.patterns.Load(p); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, err
	}
	c.patterns.Store(p, re)
	return re, nil
}

func hasType(t string, v *tomlpos.Node) bool {
	switch t {
	case "object":
		return v.Kind == tomlpos.Table
	case "array":
		return v.Kind == tomlpos.Array
	case "string":
		// A date keeps its text but is no JSON string the validator
		// would see as one; leave it to the full validator.
		return v.Kind == tomlpos.String
	case "boolean":
		return v.Kind == tomlpos.Bool
	case "null":
		return v.Kind == tomlpos.Null
	case "integer":
		return v.Kind == tomlpos.Integer
	case "number":
		return v.Kind == tomlpos.Integer || v.Kind == tomlpos.Float && !math.IsNaN(v.Float) && !math.IsInf(v.Float, 0)
	}
	return false
}
