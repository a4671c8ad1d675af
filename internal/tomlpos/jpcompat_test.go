package tomlpos

import (
	"math"
	"strings"
	"testing"
)

// TestTOMLAsJPReadsIt holds the documents where jp-policy's reading once
// differed from JP's (the toml crate 1.0.3, TOML 1.1, at JP 4c1c39f1):
// each must be refused where JP refuses it and read as JP reads it where
// JP accepts it. JP's crate is not runnable here; its behaviour comes from
// its source (crates/toml/src/de/parser) and toml-test's TOML 1.1 cases.
func TestTOMLAsJPReadsIt(t *testing.T) {
	refused := []struct{ name, doc, msg string }{
		// An inline table written as a value is frozen, also for the
		// dotted keys of the inline table around it (toml's
		// inline_table::descend_path: "duplicate key"). jp-policy read
		// both as one merged table.
		{"inline value extended by a sibling dotted key", "t = { inner = { read = true }, inner.write = true }\n", `"inner" is an inline table`},
		{"deeper inline value extended", "t = { a = { b = { c = 1 } }, a.b.d = 2 }\n", `"a" is an inline table`},
		{"inline value then dotted inline", "tbl = { fruit = { apple.color = \"red\" }, fruit.apple.texture = { smooth = true } }\n", `"fruit"`},
		// The same freezing for headers: a table a dotted key made inside
		// an inline table cannot be reopened by [header].
		{"header into an inline dotted table", "t = { a.b = 1 }\n[t.a]\nc = 2\n", `"t" is an inline table`},
		{"header below an inline dotted table", "t = { a.b = 1 }\n[t.a.x]\n", `"t" is an inline table`},
		// Stricter than JP, on purpose: JP's crate lets a dotted key add
		// to a table a header created on its way; go-toml and TOML's own
		// tests leave it open. No policy needs it.
		{"dotted key into a header's implicit table", "[[a.b.c]]\n[a]\nb.d = 1\n", `"b" names a table that a [header] below it created (at f.toml:1:1)`},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			root, err := ParseTOML("f.toml", []byte(tc.doc))
			if err == nil {
				t.Fatalf("accepted, read as %v", root.Value())
			}
			if !strings.Contains(err.Error(), tc.msg) || !strings.HasPrefix(err.Error(), "f.toml:") {
				t.Errorf("error %q: want a position and %s", err, tc.msg)
			}
		})
	}

	accepted := []struct {
		name, doc string
		check     func(*Node) bool
	}{
		// Dotted keys of one inline table may fill the tables they made.
		{"inline dotted siblings", "t = { a.b = 1, a.c = 2 }\n", func(r *Node) bool {
			a := r.Get("t").Get("a")
			return a.Get("b").Int == 1 && a.Get("c").Int == 2
		}},
		// TOML allows a sign on nan; JP reads it (toml-test
		// valid/float/inf-and-nan); strconv alone refused it.
		{"signed nan", "a = -nan\nb = +nan\n", func(r *Node) bool {
			return math.IsNaN(r.Get("a").Float) && math.IsNaN(r.Get("b").Float)
		}},
		// toml_parser skips a UTF-8 byte order mark; go-toml's parser
		// does not, so jp-policy refused a config JP reads. Positions
		// stay those of the file as written (the mark is column 1).
		{"byte order mark", "\ufeff[conversation]\nx = 1\n", func(r *Node) bool {
			x := r.Get("conversation").Get("x")
			return x.Int == 1 && x.Pos.Line == 2 && x.Pos.Col == 5 && r.Get("conversation").Pos.Col == 2
		}},
	}
	for _, tc := range accepted {
		t.Run(tc.name, func(t *testing.T) {
			root, err := ParseTOML("f.toml", []byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(root) {
				t.Errorf("read as %#v", root.Value())
			}
		})
	}
}

// TestBOMs: JP's loader (schematic) trims every leading byte order mark
// from a config file of any format (trim_start_matches) before its parser
// sees it; a mark anywhere else is text, which TOML and JSON refuse there.
func TestBOMs(t *testing.T) {
	for _, doc := range []string{"\ufeff\ufeffa = 1\n", "\ufeff\ufeff\ufeff"} {
		if _, err := ParseTOML("f", []byte(doc)); err != nil {
			t.Errorf("%q: %v", doc, err)
		}
	}
	for _, doc := range []string{"a = 1\n\ufeffb = 2\n", "a = \ufeff1\n", "\ufeff \ufeffa = 1\n"} {
		if _, err := ParseTOML("f", []byte(doc)); err == nil {
			t.Errorf("%q: accepted", doc)
		}
	}
	root, err := ParseJSON("f.json", []byte("\ufeff\ufeff{\n\"a\": \"\\ud800\"}"))
	if err == nil || !strings.HasPrefix(err.Error(), "f.json:2:7:") {
		t.Errorf("positions after byte order marks: %v %v", root, err)
	}
	if root, err := ParseJSON("f.json", []byte("\ufeff{\"a\": 1}")); err != nil || root.Get("a").Int != 1 || root.Get("a").Pos.Col != 8 {
		t.Errorf("JSON after a byte order mark: %v %v", root, err)
	}
	for _, doc := range []string{"{\ufeff}", "{} \ufeff"} {
		if _, err := ParseJSON("f", []byte(doc)); err == nil {
			t.Errorf("%q: accepted", doc)
		}
	}
}

// TestJSONAsJPReadsIt: JSON documents encoding/json reads and serde_json,
// JP's reader, refuses. jp-policy read them with U+FFFD in place of what
// was written (so a path or a key JP never loads), or deeper than JP
// reads; each is now refused at the offending character.
func TestJSONAsJPReadsIt(t *testing.T) {
	deep := func(n int) string { return strings.Repeat(`{"a":`, n-1) + "{}" + strings.Repeat("}", n-1) }
	deepArr := func(n int) string { return `{"a":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + "}" }
	refused := []struct{ name, doc, at, msg string }{
		{"lone high surrogate value", `{"path": "src/\ud800"}`, "f.json:1:15", "unpaired UTF-16 surrogate"},
		{"lone low surrogate key", "{\n  \"re\\udc00ad\": true}", "f.json:2:6", "unpaired UTF-16 surrogate"},
		{"high surrogate then a letter", `{"a": "\ud800\u0041"}`, "f.json:1:8", "unpaired"},
		{"two high surrogates", `{"a": "\ud83d\ud83d\ude00"}`, "f.json:1:8", "unpaired"},
		{"invalid UTF-8 in a string", "{\"path\": \"src\xff\"}", "f.json:1:14", "invalid UTF-8"},
		{"invalid UTF-8 outside strings", "{} \xc3", "f.json:1:4", "invalid UTF-8"},
		{"128 nested objects", deep(128), "f.json:1:", "nesting"},
		{"128 nested containers with arrays", deepArr(128), "f.json:1:", "nesting"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			root, err := ParseJSON("f.json", []byte(tc.doc))
			if err == nil {
				t.Fatalf("accepted, read as %q", root.Value())
			}
			if !strings.HasPrefix(err.Error(), tc.at) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q: want %s... %s", err, tc.at, tc.msg)
			}
		})
	}
	for _, doc := range []string{
		`{"a": "\ud83d\ude00", "b": "\uD83D\uDE00x"}`, // a pair, either case
		`{"a": "\ufffd", "b": "` + "\uFFFD" + `"}`,    // U+FFFD written, escaped or not
		`{"a": "\\ud800"}`,                            // an escaped backslash, not an escape
		deep(127), deepArr(127),                       // serde_json's deepest
	} {
		if _, err := ParseJSON("f.json", []byte(doc)); err != nil {
			t.Errorf("%.60q: %v", doc, err)
		}
	}
}
