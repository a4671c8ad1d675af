package tomlpos

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/diag"
)

const sample = `# comment
[conversation.tools.fs_create_file]
source = "local"
enable = true

[[conversation.tools.fs_create_file.access.fs]]
path = "."
read = true

[conversation.tools.fs_create_file.access.commands.cargo]
args = [["check", "**"]]

[conversation.tools.x.access]
net = [ { host = "a.example", port = 443 } ]
env.name = "x"
`

func TestParseTOMLPositions(t *testing.T) {
	root, err := ParseTOML("f.toml", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	tool, _ := root.Lookup([]string{"conversation", "tools", "fs_create_file"})
	tests := []struct {
		path          []string
		line, col     int
		keyLine, kcol int
	}{
		{[]string{"source"}, 3, 10, 3, 1},
		{[]string{"enable"}, 4, 10, 4, 1},
		{[]string{"access", "fs", "0"}, 6, 1, 0, 0},
		{[]string{"access", "fs", "0", "read"}, 8, 8, 8, 1},
		{[]string{"access", "commands", "cargo", "args"}, 11, 8, 11, 1},
		{[]string{"access", "commands", "cargo", "args", "0"}, 11, 9, 0, 0},
		{[]string{"access", "commands", "cargo", "args", "0", "1"}, 11, 19, 0, 0},
	}
	for _, tc := range tests {
		n, used := tool.Lookup(tc.path)
		if used != len(tc.path) {
			t.Fatalf("%v: only %d parts found", tc.path, used)
		}
		if n.Pos.Line != tc.line || n.Pos.Col != tc.col {
			t.Errorf("%v: pos %v, want %d:%d", tc.path, n.Pos, tc.line, tc.col)
		}
		if n.KeyPos.Line != tc.keyLine || n.KeyPos.Col != tc.kcol {
			t.Errorf("%v: key pos %v, want %d:%d", tc.path, n.KeyPos, tc.keyLine, tc.kcol)
		}
	}
	net, _ := root.Lookup([]string{"conversation", "tools", "x", "access", "net", "0", "port"})
	if net.Kind != Integer || net.Int != 443 || net.Pos.Line != 14 || net.Pos.Col != 38 {
		t.Errorf("port node %+v", net)
	}
	rule, _ := root.Lookup([]string{"conversation", "tools", "x", "access", "net", "0"})
	if rule.Pos.Line != 14 || rule.Pos.Col != 9 {
		t.Errorf("inline table pos %v, want 14:9", rule.Pos)
	}
	if got := root.Get("conversation").Keys; len(got) != 1 || got[0] != "tools" {
		t.Errorf("keys %v", got)
	}
}

func TestParseTOMLErrors(t *testing.T) {
	tests := []struct {
		name, doc string
		line, col int
		msg       string
	}{
		{"bad value", "a = 1\nb = \n", 2, 5, ""},
		{"duplicate key", "a = 1\na = 2\n", 2, 1, "already"},
		{"table redefined", "[a]\nx=1\n[a]\n", 3, 2, ""},
		{"unterminated string", "x = \"abc\n", 1, 9, "new lines"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseTOML("f.toml", []byte(tc.doc))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want *SyntaxError", err)
			}
			if se.Pos.Line != tc.line || (tc.col != 0 && se.Pos.Col != tc.col) {
				t.Errorf("pos %v, want %d:%d (%s)", se.Pos, tc.line, tc.col, se.Message)
			}
			if !strings.Contains(se.Message, tc.msg) {
				t.Errorf("message %q lacks %q", se.Message, tc.msg)
			}
		})
	}
}

func TestParseJSON(t *testing.T) {
	doc := "{\n  \"conversation\": {\"tools\": {\"t\": {\n    \"access\": {\"fs\": [ {\"path\": \".\", \"read\": true} ]}}}}\n}\n"
	root, err := ParseJSON("f.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	n, used := root.Lookup(strings.Split("conversation/tools/t/access/fs/0/read", "/"))
	if used != 7 || n.Kind != Bool || !n.Bool {
		t.Fatalf("lookup: %+v %d", n, used)
	}
	if n.Pos.Line != 3 || n.Pos.Col != 46 || n.KeyPos.Col != 38 {
		t.Errorf("pos %v key %v", n.Pos, n.KeyPos)
	}
	rule, _ := root.Lookup(strings.Split("conversation/tools/t/access/fs/0", "/"))
	if rule.Pos.Line != 3 || rule.Pos.Col != 24 {
		t.Errorf("rule pos %v", rule.Pos)
	}
	for _, bad := range []string{"[]", "{", `{"a":1,"a":2}`, `{"a":}`, `{} x`, ""} {
		if _, err := ParseJSON("f.json", []byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestValue(t *testing.T) {
	root, err := ParseTOML("f", []byte("a = 0x10\nb = 1_000\nc = 1.5e3\nd = 1979-05-27\ne = [1, 'x']\n"))
	if err != nil {
		t.Fatal(err)
	}
	v := root.Value().(map[string]any)
	if v["a"] != int64(16) || v["b"] != int64(1000) || v["c"] != 1500.0 || v["d"] != "1979-05-27" {
		t.Errorf("values %v", v)
	}
}

func TestNumbers(t *testing.T) {
	for _, bad := range []string{"a = 012\n", "a = -01\n", "a = 01.5\n", "a = 1__0\n"} {
		if _, err := ParseTOML("f", []byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	for _, good := range []string{"a = 0\n", "a = -0\n", "a = 0.5\n", "a = 0x0F\n", "a = 0o17\n", "a = 0b11\n", "a = 1e10\n", "a = -inf\n"} {
		if _, err := ParseTOML("f", []byte(good)); err != nil {
			t.Errorf("%q: %v", good, err)
		}
	}
}

// TestSpans: values carry their extent, columns count code points, and
// arrays and inline tables end at their closing bracket (past comments).
func TestSpans(t *testing.T) {
	src := "\"é\" = \"x\"\nargs = [ # c\n  [\"a\"], [],\n]\nt = { a = [1, 2] }\n[[r.s]]\n"
	root, err := ParseTOML("f", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	type span struct{ l, c, el, ec int }
	for _, tc := range []struct {
		got  diag.Position
		want span
	}{
		{root.Fields["é"].Pos, span{1, 7, 1, 10}},
		{root.Fields["é"].KeyPos, span{1, 1, 1, 4}},
		{root.Fields["args"].Pos, span{2, 8, 4, 2}},
		{root.Fields["args"].Items[0].Pos, span{3, 3, 3, 8}},
		{root.Fields["args"].Items[1].Pos, span{3, 10, 3, 12}},
		{root.Fields["t"].Pos, span{5, 5, 5, 19}},
		{root.Fields["t"].Fields["a"].Pos, span{5, 11, 5, 17}},
		{root.Fields["r"].Fields["s"].Items[0].Pos, span{6, 1, 6, 8}},
	} {
		if g := (span{tc.got.Line, tc.got.Col, tc.got.EndLine, tc.got.EndCol}); g != tc.want {
			t.Errorf("span %+v, want %+v", g, tc.want)
		}
	}
}

// TestParseReusesNothingVisible: parses share a parser and a key-name
// cache (scratch); a tree must not depend on what was parsed before it.
func TestParseReusesNothingVisible(t *testing.T) {
	a := "[x]\npath = \"a\"\nlist = [1, 2, { k = \"v\" }]\n[[x.y]]\nread = true\n"
	b := "[other.tables]\nwith = \"more\"\nand = [\"longer\", \"arrays\", \"than\", \"before\"]\n[[x.y]]\npath = 'b'\n"
	first, err := ParseTOML("a.toml", []byte(a))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseTOML("b.toml", []byte(b)); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseTOML("bad.toml", []byte("x = [")); err == nil {
		t.Fatal("a syntax error parsed")
	}
	again, err := ParseTOML("a.toml", []byte(a))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(first, again) {
		t.Fatal("the same document parsed to different trees after other documents")
	}
}
