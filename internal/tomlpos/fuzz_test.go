package tomlpos

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	toml "github.com/pelletier/go-toml/v2"
)

// FuzzParse asserts the parsers never panic, that a successful parse
// yields positions inside the document, and that every value's span
// (Pos to its end) holds exactly that value: parsed again on its own, the
// text reads back as the same value.
func FuzzParse(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte(`{"a": [1, {"b": null}]}`))
	f.Add([]byte("[[a.b]]\nc = { d = [[1], []] }\n"))
	f.Add([]byte("\"é\" = [ # c\n 1,\n 'x', ]\nb = { c = \"\"\"\nm\"\"\" }\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for i, parse := range []func(string, []byte) (*Node, error){ParseTOML, ParseJSON} {
			root, err := parse("f", data)
			if err != nil {
				if root != nil {
					t.Fatal("tree and error together")
				}
				continue
			}
			var walk func(n *Node)
			walk = func(n *Node) {
				if n.Pos.Line < 1 || n.Pos.Col < 1 {
					t.Fatalf("bad position %v", n.Pos)
				}
				if n != root && n.origin != originArrayElem && (n.Kind != Table || n.origin == originInline) {
					checkSpan(t, data, n, i == 1)
				}
				for _, c := range n.Fields {
					walk(c)
				}
				for _, c := range n.Items {
					walk(c)
				}
			}
			walk(root)
			_ = root.Value()
		}
	})
}

// FuzzTOMLAgreesWithDecoder checks that ParseTOML accepts exactly the
// documents go-toml's own decoder accepts, so jp-policy never reads a
// config that JP would reject, nor the reverse.
func FuzzTOMLAgreesWithDecoder(f *testing.F) {
	for _, s := range []string{sample, "a.b = 1\n[a]\n", "[a.b]\n[a]\nb.c = 1\n", "a = {b = 1}\na.c = 2\n",
		"[[a]]\n[a.b]\n[[a]]\n[a.b]\n", "x = 1979-13-27\n", "x = 012\n", "[a]\nb.c = 1\n[a.b.d]\n", "a = [1]\n[[a]]\n",
		"[[a]]\nb.c = 1\n[[a]]\nb.c = 2\n", "a.b.c = 1\na.b.d = 2\n", "[a.b]\nc = 1\n[a]\nb.d = 2\n", "x = {a.b = 1}\n[x.a]\n",
		"[a]\nb = {}\n[a.b.c]\n", "a = [{b = 1}]\n[[a]]\n", "[a]\n[a.b]\n[a]\n", "a = 1979-05-27T07:32:00Z\nb = 07:32:00\n",
		// Found against JP's reading (jpcompat_test.go).
		"t = { i = { r = true }, i.w = true }\n", "t = { a.b = 1 }\n[t.a]\n", "t = { a.b = 1, a.c = 2 }\n", "a = -nan\n", "\ufeffa = 1\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, mine := ParseTOML("f", data)
		var v map[string]any
		// JP's loader skips leading byte order marks, go-toml's decoder
		// does not; ParseTOML does as JP does.
		theirs := toml.Unmarshal(data[SkipBOMs(data):], &v)
		if (mine == nil) != (theirs == nil) {
			t.Fatalf("disagree on %q: ParseTOML: %v; go-toml: %v", data, mine, theirs)
		}
	})
}

// FuzzJSONAgreesWithDecoder checks that ParseJSON only accepts what
// encoding/json accepts as an object, and rejects an object that
// encoding/json accepts only for a duplicate key.
func FuzzJSONAgreesWithDecoder(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2.5, -3e2, true, null, {"b": "\u00e9"}]}`, `{"a": 1, "a": 2}`, `{"a": 1,}`, `[]`, `{} {}`, `{"a": 1e400}`,
		`{"a": "\ud800"}`, `{"\udc00": 1}`, `{"a": "\ud83d\ude00"}`, "{\"a\": \"\xff\"}", `{"a": "\\ud800"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, mine := ParseJSON("f", data)
		var v map[string]any
		theirs := json.Unmarshal(data[SkipBOMs(data):], &v) // as for TOML
		switch {
		case mine == nil && theirs != nil:
			t.Fatalf("ParseJSON accepted what encoding/json rejects: %q: %v", data, theirs)
		case mine != nil && theirs == nil && !jpRefuses(mine):
			t.Fatalf("ParseJSON rejected a valid object: %q: %v", data, mine)
		}
	})
}

// jpRefuses reports the errors by which ParseJSON refuses, on purpose, an
// object encoding/json accepts: what JP's serde_json refuses (or reads
// differently), and duplicate keys.
func jpRefuses(err error) bool {
	for _, s := range []string{"twice", "out of range", "surrogate", "invalid UTF-8", "nesting"} {
		if strings.Contains(err.Error(), s) {
			return true
		}
	}
	return false
}

// checkSpan re-parses the text n's span covers and wants n's value back.
func checkSpan(t *testing.T, data []byte, n *Node, isJSON bool) {
	t.Helper()
	if !n.Pos.HasEnd() {
		t.Fatalf("value without an end: %+v", n.Pos)
	}
	from, ok1 := Offset(data, n.Pos.Line, n.Pos.Col)
	to, ok2 := Offset(data, n.Pos.EndLine, n.Pos.EndCol)
	if !ok1 || !ok2 || to <= from {
		t.Fatalf("span %+v is not inside the document", n.Pos)
	}
	text := data[from:to]
	var again *Node
	var err error
	if isJSON {
		again, err = ParseJSON("g", append(append([]byte(`{"v": `), text...), '}'))
	} else {
		again, err = ParseTOML("g", append([]byte("v = "), text...))
	}
	if err != nil {
		t.Fatalf("span %q of %+v does not parse alone: %v", text, n.Pos, err)
	}
	if got, want := again.Fields["v"].Value(), n.Value(); !reflect.DeepEqual(got, want) {
		t.Fatalf("span %q reads as %#v, the value is %#v", text, got, want)
	}
}
