package schema

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jp-policy/jp-policy/internal/testfixture"
	"github.com/jp-policy/jp-policy/internal/tomlpos"
	"github.com/rogpeppe/go-internal/txtar"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// santhosh-tekuri/jsonschema is a test oracle only: the binary interprets
// schema.json itself (compile.go), and these tests hold the two to
// the same answers.

// schemaURL is schema.json's $id.
const schemaURL = "https://github.com/jp-policy/jp-policy/schema/jp-config.json"

var oracleSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource(schemaURL, bytes.NewReader(schemaJSON)); err != nil {
		return nil, err
	}
	return c.Compile(schemaURL)
})

func TestSchemaCompilesUnderDraft2020(t *testing.T) {
	if _, err := oracleSchema(); err != nil {
		t.Fatal(err)
	}
}

// oracleValue is tomlpos.Node.Value except for dates: the validator
// treats a date as no JSON type at all, and null is the one value no
// location in the schema accepts either, so the oracle must fail in the
// same places.
func oracleValue(n *tomlpos.Node) any {
	switch n.Kind {
	case tomlpos.DateTime:
		return nil
	case tomlpos.Table:
		m := make(map[string]any, len(n.Fields))
		for k, v := range n.Fields {
			m[k] = oracleValue(v)
		}
		return m
	case tomlpos.Array:
		a := make([]any, len(n.Items))
		for i, v := range n.Items {
			a[i] = oracleValue(v)
		}
		return a
	}
	return n.Value()
}

// oracleLeaves validates with the oracle and returns its leaf failures as
// "pointer keyword" strings, plus their messages by that key.
func oracleLeaves(t testing.TB, tree *tomlpos.Node) ([]string, map[string]string) {
	s, err := oracleSchema()
	if err != nil {
		t.Fatal(err)
	}
	err = s.Validate(oracleValue(tree))
	if err == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("oracle: %v", err)
	}
	var out []string
	msgs := map[string]string{}
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		k := oracleKey(e)
		out = append(out, k)
		msgs[k] = e.Message
	}
	walk(ve)
	slices.Sort(out)
	return out, msgs
}

// oracleKey identifies a leaf failure of the oracle as "pointer keyword
// location", location being the keyword's place in schema.json after
// $refs are followed (as schemaViolation.Loc).
func oracleKey(e *jsonschema.ValidationError) string {
	kw := e.KeywordLocation[strings.LastIndex(e.KeywordLocation, "/")+1:]
	_, frag, _ := strings.Cut(e.AbsoluteKeywordLocation, "#")
	return oraclePointer(e.InstanceLocation) + " " + kw + " #" + oraclePointer(frag)
}

// violationKey is oracleKey for the validator.
func violationKey(v schemaViolation) string {
	return comparablePointer(v) + " " + v.Keyword + " " + v.Loc
}

// oraclePointer re-encodes the oracle's instance location, which it
// URL-escapes on top of RFC 6901 ('*' is %2A), as a plain JSON pointer.
func oraclePointer(p string) string {
	if p == "" {
		return ""
	}
	var b strings.Builder
	for s := range strings.SplitSeq(strings.TrimPrefix(p, "/"), "/") {
		if u, err := url.PathUnescape(s); err == nil {
			s = u
		}
		b.WriteString("/" + s) // still ~0/~1-escaped, as RFC 6901 wants
	}
	return b.String()
}

// comparablePointer is v's instance location as the oracle writes it:
// the oracle leaves a key "" out of the pointer ("/tools//source" comes
// out "/tools/source"), a bug of its own, so empty tokens are dropped here
// for the comparison only.
func comparablePointer(v schemaViolation) string {
	return schemaViolation{Path: slices.DeleteFunc(slices.Clone(v.Path), func(s string) bool { return s == "" })}.Pointer()
}

// agree runs both validators on tree (a whole document, as the loader
// validates it) and reports any difference in the verdict, in the leaf
// failures (instance pointer and keyword) and, where both can word it the
// same, in the message.
func agree(t testing.TB, what string, tree *tomlpos.Node) {
	cs, err := loadSchema()
	if err != nil {
		t.Fatal(err)
	}
	want, wantMsg := oracleLeaves(t, tree)
	var got []string
	gotMsg := map[string]string{}
	for _, v := range cs.validate(tree) {
		k := violationKey(v)
		got = append(got, k)
		gotMsg[k] = v.Message
		if n, _ := tree.Lookup(v.Path); n != nil && (n.Kind == tomlpos.DateTime || n.Kind == tomlpos.Float && (math.IsNaN(n.Float) || math.IsInf(n.Float, 0))) {
			gotMsg[k] = wantMsg[k] // worded with the user's value, not the oracle's stand-in
		}
		if v.Keyword == "additionalProperties" {
			gotMsg[k] = wantMsg[k] // the oracle lists the names in map order
		}
	}
	slices.Sort(got)
	if (len(got) == 0) != (len(want) == 0) {
		t.Fatalf("%s: validator valid = %v, oracle valid = %v\nvalidator: %q\noracle: %q", what, len(got) == 0, len(want) == 0, got, want)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s: leaf failures differ\nvalidator: %q\noracle:    %q", what, got, want)
	}
	for k, m := range gotMsg {
		if m != wantMsg[k] {
			t.Errorf("%s: %s: message %q, oracle %q", what, k, m, wantMsg[k])
		}
	}
}

// oracleDocs are documents beyond validateCases: edge cases of the
// keywords themselves.
var oracleDocs = []string{
	"conversation.tools.t.access.fs = [{ path = \".\", read = true }]\n",
	"conversation.tools.t.access.fs = { strategy = \"replace\", value = [], dedup = \"inherit\" }\n",
	"conversation.tools.t.access.config = [{ path = \"a\", write = \"insecure_allow\" }]\n",
	"conversation.tools.t.source = \"mcp.s.t\"\nconversation.tools.t.style.x = 1\n",
	"extends = [\"a.toml\", { path = \"b.toml\", strategy = \"after\" }]\n",
	"conversation.tools.t.access.fs = [{ path = \".\", raed = true }]\n",
	"conversation.tools.t.access.net = [{ host = \"h\", port = 0 }]\n",
	"conversation.tools.t.access.net = [{ host = \"h\", port = 1.0 }]\n",
	"conversation.tools.t.access.net = [{ host = \"h\", port = 65535.5 }]\n",
	"conversation.tools.t.access.net = [{ host = \"h\", port = 1e300 }]\n",
	"conversation.tools.t.access.net = [{ host = \"h\", port = -9223372036854775808 }]\n",
	"conversation.tools.t.access.net = [{ host = \"h\", port = 9223372036854775807 }]\n",
	"conversation.tools.t.access.net = [{ host = \"h\", port = \"443\" }]\n",
	"conversation.tools.t.source = \"mcp\"\n",
	"conversation.tools.t.access.env = [{ read = true }]\n",
	"conversation.tools.t.access.config = [{ path = \"a\", write = \"yes\" }]\n",
	"extends = [{ strategy = \"after\" }]\n",
	"extends = [{ strategy = \"sideways\", x = 1, path = \"\" }, 3, \"\", [] ]\n",
	"extends = \"a.toml\"\ninherit = \"no\"\nconfig_load_paths = [1, \"a\"]\n",
	"conversation = 1\n",
	"conversation.tools.'*' = { run = 1, enable = 2, access = { fs = 3, nope = 4 }, source = \"x\" }\n",
	"conversation.tools.'a/b~c%2A' = { source = 1 }\n",
	"conversation.tools.t = { source = \"local\", command = { program = 1, args = [1, \"a\"], shell = \"no\" } }\n",
	"conversation.tools.t = { command = 1 }\n",
	"conversation.tools.t.access.commands = { git = { args = [[\"a\", 1], \"b\"], envs = [\"\", \"HOME\"], x = 1 }, ls = 2 }\n",
	"conversation.tools.t.access.sensitive_paths = [\"\", 1]\n",
	"conversation.tools.t.access.sensitive_paths = { strategy = \"append\", value = [\"a\", \"\"], dedup = 1, discard_when_merged = \"x\", y = 1 }\n",
	"conversation.tools.t.access.sensitive_paths = \"x\"\n",
	"conversation.tools.t.access.env = { value = [{ name = \"\" }, { name = \"**\" }, { name = \"A*\" }, 1] }\n",
	"conversation.tools.t.access.net = { value = [{ host = \"\", scheme = \"\", port = 70000, path_prefix = 1, allow = 1 }] }\n",
	"conversation.tools.t.access.config = { value = [{ path = \"\", read = 1, write = 2, delete = 3, apply = 4 }] }\n",
	"conversation.tools.t.access.fs = [{ path = 1979-05-27 }, { path = 07:32:00 }, { path = 1979-05-27T07:32:00Z, read = nan }]\n",
	"conversation.tools.t.run = 1979-05-27\n",
	"conversation.tools.t.enable = 1979-05-27\n",
	"conversation.tools.t.source = \"ümlaut.x\"\n",
	"conversation.tools.t.source = \"builtin.a.b\"\n",
	"conversation.tools.t.source = \"local.\"\n",
}

func TestValidatorAgreesWithOracle(t *testing.T) {
	check := func(name, file string, data []byte) {
		var root *tomlpos.Node
		var err error
		if strings.HasSuffix(file, ".json") {
			root, err = tomlpos.ParseJSON(file, data)
		} else {
			root, err = tomlpos.ParseTOML(file, data)
		}
		if err != nil {
			return // syntax errors are the subject of other tests
		}
		agree(t, name, root)
	}
	for _, tc := range validateCases {
		check(tc.name, "f.toml", []byte(tc.doc))
	}
	for i, d := range oracleDocs {
		check(fmt.Sprintf("oracleDocs[%d]", i), "f.toml", []byte(d))
	}
	// Every config file in the testscripts and lint goldens (the real
	// workspaces are TestValidatorAgreesWithOracleOnWorkspaces's).
	n := 0
	for _, pattern := range []string{"../../testdata/scripts/*.txtar", "../lint/testdata/*.txtar"} {
		archives, _ := filepath.Glob(pattern)
		for _, a := range archives {
			ar, err := txtar.ParseFile(a)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range ar.Files {
				if strings.HasSuffix(f.Name, ".toml") || strings.HasSuffix(f.Name, ".json") {
					check(a+":"+f.Name, f.Name, f.Data)
					n++
				}
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d corpus files found; the differential test lost its inputs", n)
	}
}

// TestValidatorAgreesWithOracleOnWorkspaces runs the differential test on
// every config file of a real workspace layout: the project's own
// fixture always, JP's own workspace config when it is beside the
// repository. Unlike the txtar corpus, these files are all meant to parse,
// so a syntax error or a failed walk fails the test instead of shrinking
// it.
func TestValidatorAgreesWithOracleOnWorkspaces(t *testing.T) {
	for _, ws := range []struct {
		name string
		dir  func(testing.TB) string
		min  int // files the walk must find, so a moved fixture fails
	}{
		{"jp-layout", func(testing.TB) string { return testfixture.Own() }, 31},
		{"jp-upstream", testfixture.Upstream, 100},
	} {
		t.Run(ws.name, func(t *testing.T) {
			n := 0
			err := filepath.WalkDir(filepath.Join(ws.dir(t), ".jp"), func(p string, d os.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if d.IsDir() || !(strings.HasSuffix(p, ".toml") || strings.HasSuffix(p, ".json")) {
					return nil
				}
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				root, err := tomlpos.ParseTOML(p, data)
				if err != nil {
					t.Errorf("%s does not parse: %v", p, err)
					return nil
				}
				agree(t, p, root)
				n++
				return nil
			})
			if err != nil {
				t.Fatalf("walking the fixture: %v", err)
			}
			if n < ws.min {
				t.Errorf("only %d config files found in %s (want at least %d); the differential test lost its inputs", n, ws.name, ws.min)
			}
		})
	}
}

// FuzzSchemaOracle: the validator and the oracle agree on every document
// on valid/invalid and on the leaf failures.
func FuzzSchemaOracle(f *testing.F) {
	for _, tc := range validateCases {
		f.Add([]byte(tc.doc), false)
	}
	for _, d := range oracleDocs {
		f.Add([]byte(d), false)
	}
	f.Add([]byte(`{"conversation": {"tools": {"t": {"access": {"fs": {"strategy": "replace", "value": [{"path": 1}]}}}}}}`), true)
	f.Add([]byte(`{"extends": [null, {"path": null}], "conversation": {"tools": {"*": {"run": null}, "t": {"access": {"net": [{"host": "h", "port": 443.0}, {"host": "h", "port": 1e400}]}}}}}`), true)
	f.Fuzz(func(t *testing.T, data []byte, asJSON bool) {
		var root *tomlpos.Node
		var err error
		if asJSON {
			root, err = tomlpos.ParseJSON("f.json", data)
		} else {
			root, err = tomlpos.ParseTOML("f.toml", data)
		}
		if err != nil {
			return
		}
		agree(t, fmt.Sprintf("%q", data), root)
		// The diagnostics built from the result never hit validate's
		// recover, which would report an internal error.
		for _, d := range Validate(root) {
			if strings.Contains(d.Message, "internal error") {
				t.Fatalf("%q: %v", data, d)
			}
		}
	})
}

// TestKeywordsAgreeWithOracle exercises each keyword beyond what
// schema.json happens to use (number and null enums, fractional bounds,
// $ref beside other keywords) on small schemas, against the oracle, with
// the expected leaf failures spelt out so that agreement on a wrong answer
// also fails.
func TestKeywordsAgreeWithOracle(t *testing.T) {
	tests := []struct {
		x, defs, doc string
		want         []string // "pointer keyword", sorted
	}{
		{`{"enum": [null, 1, 2.5, "a", false]}`, "", `{"x": 1.0}`, nil},
		{`{"enum": [null, 1, 2.5, "a", false]}`, "", `{"x": null}`, nil},
		{`{"enum": [null, 1, 2.5, "a", false]}`, "", `{"x": 2.5}`, nil},
		{`{"enum": [null, 1, 2.5, "a", false]}`, "", `{"x": true}`, []string{"/x enum"}},
		{`{"enum": [null, 1, 2.5, "a", false]}`, "", `{"x": 0}`, []string{"/x enum"}},
		{`{"minimum": -1.25, "maximum": 1e3}`, "", `{"x": -1.25}`, nil},
		{`{"minimum": -1.25, "maximum": 1e3}`, "", `{"x": -1.26}`, []string{"/x minimum"}},
		{`{"minimum": -1.25, "maximum": 1e3}`, "", `{"x": 1001}`, []string{"/x maximum"}},
		{`{"minimum": -1.25, "maximum": 1e3}`, "", `{"x": "1001"}`, nil},
		{`{"type": "integer", "minimum": 0}`, "", `{"x": -0.0}`, nil},
		{`{"type": ["null", "integer"]}`, "", `{"x": null}`, nil},
		{`{"type": ["null", "integer"]}`, "", `{"x": 1.5}`, []string{"/x type"}},
		{`{"$ref": "#/$defs/a", "required": ["m"]}`, `"a": {"properties": {"n": {"$ref": "#/$defs/a"}}, "required": ["k"]}`,
			`{"x": {"n": {"n": {"k": 1}}}}`, []string{"/x required", "/x required", "/x/n required"}},
		{`{"$ref": "#/$defs/a", "type": "object"}`, `"a": {"type": "string"}`, `{"x": {}}`, []string{"/x type"}},
		{`{"additionalProperties": {"type": "string"}, "properties": {"p": {}}}`, "", `{"x": {"p": 1, "q": 2, "r": "s"}}`, []string{"/x/q type"}},
		{`{"additionalProperties": false}`, "", `{"x": {"a/b": 1, "c~d": 2}}`, []string{"/x additionalProperties"}},
		{`{"items": {"minLength": 2}}`, "", `{"x": ["ab", "é", 1, "ü€"]}`, []string{"/x/1 minLength"}},
		{`{"pattern": "^a"}`, "", `{"x": "ba"}`, []string{"/x pattern"}},
	}
	for _, tc := range tests {
		doc := testSchema(tc.x, tc.defs)
		cs, err := compileSchema([]byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", tc.x, err)
		}
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft2020
		if err := c.AddResource("test.json", strings.NewReader(doc)); err != nil {
			t.Fatal(err)
		}
		oracle, err := c.Compile("test.json")
		if err != nil {
			t.Fatalf("%s: oracle: %v", tc.x, err)
		}
		root, err := tomlpos.ParseJSON("f.json", []byte(tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		var got, gotFull []string
		for _, v := range cs.validate(root) {
			got = append(got, v.Pointer()+" "+v.Keyword)
			gotFull = append(gotFull, violationKey(v))
		}
		slices.Sort(got)
		slices.Sort(gotFull)
		var want []string
		if ve, ok := errors.AsType[*jsonschema.ValidationError](oracle.Validate(oracleValue(root))); ok {
			var walk func(*jsonschema.ValidationError)
			walk = func(e *jsonschema.ValidationError) {
				for _, c := range e.Causes {
					walk(c)
				}
				if len(e.Causes) == 0 {
					want = append(want, oracleKey(e))
				}
			}
			walk(ve)
		}
		slices.Sort(want)
		if !slices.Equal(gotFull, want) {
			t.Errorf("%s on %s: validator %q, oracle %q", tc.x, tc.doc, gotFull, want)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s on %s: got %q, want %q", tc.x, tc.doc, got, tc.want)
		}
	}
}
