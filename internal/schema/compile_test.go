package schema

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/tomlpos"
)

// implemented is the keyword subset compile.go interprets. The walk
// below is independent of the compiler on purpose: if schema.json gains a
// keyword, this fails even if someone also taught the compiler to skip it.
var implemented = map[string]bool{
	"$ref": true, "type": true, "properties": true, "additionalProperties": true, "required": true,
	"enum": true, "pattern": true, "minimum": true, "maximum": true, "minLength": true, "items": true,
	"$schema": true, "$id": true, "$defs": true, "title": true, "description": true,
}

func TestSchemaUsesOnlyImplementedKeywords(t *testing.T) {
	var root map[string]any
	if err := json.Unmarshal(schemaJSON, &root); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var walk func(v any, loc string)
	walk = func(v any, loc string) {
		s, ok := v.(map[string]any)
		if !ok {
			t.Errorf("%s: subschema is not an object", loc)
			return
		}
		for kw, arg := range s {
			seen[kw] = true
			if !implemented[kw] {
				t.Errorf("%s: keyword %q is not implemented by the validator", loc, kw)
			}
			switch kw {
			case "properties", "$defs":
				m, _ := arg.(map[string]any)
				for k, sub := range m {
					walk(sub, loc+"/"+kw+"/"+k)
				}
			case "items":
				walk(arg, loc+"/items")
			case "additionalProperties":
				if _, isBool := arg.(bool); !isBool {
					walk(arg, loc+"/additionalProperties")
				}
			}
		}
	}
	walk(root, "#")
	// The subset is what the schema uses: a keyword implemented but no
	// longer used is dead, untested-by-the-oracle code.
	for kw := range implemented {
		if !seen[kw] {
			t.Errorf("keyword %q is implemented but schema.json no longer uses it; drop it", kw)
		}
	}
}

// testSchema wraps a root "x" property schema and extra $defs in a
// schema document.
func testSchema(x, defs string) string {
	if defs != "" {
		defs = ", " + defs
	}
	return `{"$schema": "` + draft2020 + `", "type": "object", "properties": {"x": ` + x + `},
	  "$defs": {"unused": {}` + defs + `}}`
}

func TestCompileRefuses(t *testing.T) {
	tests := []struct {
		name, doc, loc, msg string
	}{
		{"oneOf", testSchema(`{"oneOf": [{"type": "string"}]}`, ""), "#/properties/x/oneOf", `keyword "oneOf" is not implemented`},
		{"const", testSchema(`{"const": 1}`, ""), "#/properties/x/const", "not implemented"},
		{"unknown in a def", testSchema(`{}`, `"d": {"format": "uri"}`), "#/$defs/d/format", "not implemented"},
		{"unknown in an unreferenced nested def", testSchema(`{}`, `"d": {"properties": {"y": {"items": {"uniqueItems": true}}}}`), "#/$defs/d/properties/y/items/uniqueItems", "not implemented"},
		{"additionalProperties schema", testSchema(`{"additionalProperties": {"maxLength": 3}}`, ""), "#/properties/x/additionalProperties/maxLength", "not implemented"},
		{"nested $id", testSchema(`{"$id": "x"}`, ""), "#/properties/x/$id", "only supported at the schema root"},
		{"nested $defs", testSchema(`{"$defs": {}}`, ""), "#/properties/x/$defs", "only supported at the schema root"},
		{"tuple items", testSchema(`{"items": [{}]}`, ""), "#/properties/x/items", "subschema must be an object"},
		{"boolean subschema", testSchema(`false`, ""), "#/properties/x", "subschema must be an object"},
		{"remote ref", testSchema(`{"$ref": "other.json#/x"}`, ""), "#/properties/x/$ref", "only \"#/$defs/<name>\""},
		{"pointer ref", testSchema(`{"$ref": "#/properties/y"}`, ""), "#/properties/x/$ref", "only"},
		{"escaped ref", testSchema(`{"$ref": "#/$defs/a~1b"}`, ""), "#/properties/x/$ref", "only"},
		{"missing def", testSchema(`{"$ref": "#/$defs/nope"}`, ""), "#/$defs/nope", "missing"},
		{"ref cycle", testSchema(`{}`, `"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}`), "#/$defs/", "$ref cycle"},
		{"self ref", testSchema(`{}`, `"a": {"$ref": "#/$defs/a"}`), "#/$defs/a", "$ref cycle"},
		{"unknown type", testSchema(`{"type": "int"}`, ""), "#/properties/x/type", `unknown type "int"`},
		{"empty type", testSchema(`{"type": []}`, ""), "#/properties/x/type", "names no type"},
		{"object enum", testSchema(`{"enum": [{}]}`, ""), "#/properties/x/enum", "only null, boolean, string and number"},
		{"empty enum", testSchema(`{"enum": []}`, ""), "#/properties/x/enum", "non-empty"},
		{"bad pattern", testSchema(`{"pattern": "("}`, ""), "#/properties/x/pattern", "missing closing )"},
		{"lookahead pattern", testSchema(`{"pattern": "(?=a)"}`, ""), "#/properties/x/pattern", "invalid or unsupported Perl syntax"},
		{"fractional minLength", testSchema(`{"minLength": 1.5}`, ""), "#/properties/x/minLength", "non-negative integer"},
		{"negative minLength", testSchema(`{"minLength": -1}`, ""), "#/properties/x/minLength", "non-negative integer"},
		{"string minimum", testSchema(`{"minimum": "1"}`, ""), "#/properties/x/minimum", "must be a number"},
		{"required not strings", testSchema(`{"required": [1]}`, ""), "#/properties/x/required", "array of strings"},
		{"title not a string", testSchema(`{"title": 1}`, ""), "#/properties/x/title", "must be a string"},
		{"other draft", `{"$schema": "http://json-schema.org/draft-07/schema#"}`, "#/$schema", "must be"},
		{"no draft", `{}`, "#/$schema", "must be"},
		{"not an object", `[]`, "#", "must be an object"},
		{"not JSON", `{`, "#", "not JSON"},
		{"trailing data", `{} {}`, "#", "trailing data"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := compileSchema([]byte(tc.doc))
			var se *schemaDocError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a *schemaDocError", err)
			}
			if !strings.HasPrefix(se.Loc, tc.loc) || !strings.Contains(se.Msg, tc.msg) {
				t.Errorf("got %s, want at %s: %q", se, tc.loc, tc.msg)
			}
		})
	}
}

func TestCompileAccepts(t *testing.T) {
	for _, doc := range []string{
		testSchema(`{"additionalProperties": true}`, ""),
		testSchema(`{"enum": [null, 1, 2.5, "a", false]}`, ""),
		testSchema(`{"minimum": -1.25, "maximum": 1e3}`, ""),
		testSchema(`{"$ref": "#/$defs/a", "type": "object"}`, `"a": {"properties": {"n": {"$ref": "#/$defs/a"}}}`), // recursion through an instance step
	} {
		if _, err := compileSchema([]byte(doc)); err != nil {
			t.Errorf("%s: %v", doc, err)
		}
	}
}

// TestValidateFailsClosed: a schema the compiler refuses makes every
// document invalid, never every document valid.
func TestValidateFailsClosed(t *testing.T) {
	cs, err := compileSchema([]byte(testSchema(`{"oneOf": []}`, "")))
	if err == nil {
		t.Fatal("compiled")
	}
	root, perr := tomlpos.ParseTOML("f", []byte("x = 1\n"))
	if perr != nil {
		t.Fatal(perr)
	}
	got := validateWith(cs, err, root)
	if !got.HasErrors() || !strings.Contains(got.Error(), "schema.json #/properties/x/oneOf") {
		t.Errorf("got %v, want an error naming the keyword", got)
	}
}
