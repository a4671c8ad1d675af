package config

import (
	"math"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// fastValid proves a value valid against the embedded schema without the
// cost of the full validator, which builds error trees for every object
// and dominates loading time on large configs. It interprets the schema
// document itself, so there is still one source of truth, and answers
// true only when every keyword involved is one it implements; anything
// else (an unknown keyword, a float where an integer is wanted) is "not
// proven", and the full validator then runs and reports the findings.
// FuzzFastCheck checks that fastValid never accepts what the validator
// rejects.
type fastChecker struct {
	root     map[string]any
	patterns sync.Map // string -> *regexp.Regexp
}

// annotations carry no constraint.
var annotations = map[string]bool{"$schema": true, "$id": true, "$defs": true, "title": true, "description": true}

func (c *fastChecker) valid(s map[string]any, v any) bool {
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

func (c *fastChecker) keyword(s map[string]any, kw string, arg, v any) bool {
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
		obj, ok := v.(map[string]any)
		if !ok {
			return true
		}
		props, _ := arg.(map[string]any)
		for k, sub := range props {
			if val, present := obj[k]; present {
				if sm, ok := sub.(map[string]any); !ok || !c.valid(sm, val) {
					return false
				}
			}
		}
		return true
	case "additionalProperties":
		obj, ok := v.(map[string]any)
		if !ok {
			return true
		}
		props, _ := s["properties"].(map[string]any)
		for k, val := range obj {
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
		arr, ok := v.([]any)
		if !ok {
			return true
		}
		sub, ok := arg.(map[string]any)
		if !ok {
			return false
		}
		for _, it := range arr {
			if !c.valid(sub, it) {
				return false
			}
		}
		return true
	case "required":
		obj, ok := v.(map[string]any)
		if !ok {
			return true
		}
		names, _ := arg.([]any)
		for _, n := range names {
			name, _ := n.(string)
			if _, present := obj[name]; !present {
				return false
			}
		}
		return true
	case "enum":
		opts, _ := arg.([]any)
		for _, o := range opts {
			switch ov := o.(type) {
			case string:
				if sv, ok := v.(string); ok && sv == ov {
					return true
				}
			case bool:
				if bv, ok := v.(bool); ok && bv == ov {
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
		switch n := v.(type) {
		case int64:
			x = float64(n)
		case float64:
			x = n
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
		str, isStr := v.(string)
		return !isStr || float64(utf8.RuneCountInString(str)) >= n
	case "pattern":
		str, isStr := v.(string)
		if !isStr {
			return true
		}
		p, _ := arg.(string)
		re, err := c.pattern(p)
		return err == nil && re.MatchString(str)
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

func hasType(t string, v any) bool {
	switch t {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "integer":
		_, ok := v.(int64)
		return ok
	case "number":
		switch n := v.(type) {
		case int64:
			return true
		case float64:
			return !math.IsNaN(n) && !math.IsInf(n, 0)
		}
	}
	return false
}
