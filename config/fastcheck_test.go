package config

import (
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/tomlpos"
)

func TestFastCheck(t *testing.T) {
	if _, err := schema(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		doc  string
		want bool
	}{
		{"conversation.tools.t.access.fs = [{ path = \".\", read = true }]\n", true},
		{"conversation.tools.t.access.fs = { strategy = \"replace\", value = [], dedup = \"inherit\" }\n", true},
		{"conversation.tools.t.access.config = [{ path = \"a\", write = \"insecure_allow\" }]\n", true},
		{"conversation.tools.t.source = \"mcp.s.t\"\nconversation.tools.t.style.x = 1\n", true},
		{"extends = [\"a.toml\", { path = \"b.toml\", strategy = \"after\" }]\n", true},
		{"conversation.tools.t.access.fs = [{ path = \".\", raed = true }]\n", false},
		{"conversation.tools.t.access.net = [{ host = \"h\", port = 0 }]\n", false},
		{"conversation.tools.t.access.net = [{ host = \"h\", port = 1.0 }]\n", true}, // an integer to JSON Schema; fast path unsure
		{"conversation.tools.t.source = \"mcp\"\n", false},
		{"conversation.tools.t.access.env = [{ read = true }]\n", false},
		{"conversation.tools.t.access.config = [{ path = \"a\", write = \"yes\" }]\n", false},
		{"extends = [{ strategy = \"after\" }]\n", false},
	}
	for _, tc := range tests {
		root, err := tomlpos.ParseTOML("f", []byte(tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		v := ownedTree(root)
		full := compiled.Validate(v.Value()) == nil
		if got := fast.valid(fast.root, v); got && !full || !got && tc.want && !strings.Contains(tc.doc, "1.0") {
			t.Errorf("%q: fast = %v, full = %v", tc.doc, got, full)
		}
		if full != tc.want {
			t.Errorf("%q: full validator = %v, want %v", tc.doc, full, tc.want)
		}
	}
}

// FuzzFastCheck asserts the fast path never accepts a document the full
// validator rejects.
func FuzzFastCheck(f *testing.F) {
	f.Add([]byte("conversation.tools.t.access.fs = [{ path = \".\", read = true }]\n"))
	f.Add([]byte("conversation.tools.t.access = { net = [{ host = \"h\", port = 443, allow = true }], commands.git.args = [[\"x\"]] }\n"))
	f.Add([]byte("extends = [\"a\", { path = \"b\" }]\ninherit = true\nconversation.tools.'*'.run = \"ask\"\n"))
	f.Add([]byte("conversation.tools.t = { source = \"local\", enable = \"explicit\", command = { program = \"p\", args = [\"a\"] } }\n"))
	if _, err := schema(); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		root, err := tomlpos.ParseTOML("f", data)
		if err != nil {
			return
		}
		v := ownedTree(root)
		if fast.valid(fast.root, v) {
			if err := compiled.Validate(v.Value()); err != nil {
				t.Fatalf("fast path accepted an invalid document %q: %v", data, err)
			}
		}
	})
}
