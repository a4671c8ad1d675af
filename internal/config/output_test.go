package config

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/jp-policy/jp-policy/internal/diag"
)

func TestRelPos(t *testing.T) {
	base := filepath.FromSlash("/w/ws")
	tests := []struct {
		in, want string
	}{
		{"/w/ws/.jp/config.toml", ".jp/config.toml"},
		{"/w/other.toml", "/w/other.toml"},
		{"/w/wsx/a.toml", "/w/wsx/a.toml"},
		{"env:JP_CFG_X", "env:JP_CFG_X"},
	}
	for _, tc := range tests {
		got := RelPos(diag.Position{File: filepath.FromSlash(tc.in), Line: 1, Col: 2}, base)
		if got.File != filepath.FromSlash(tc.want) && got.File != tc.want {
			t.Errorf("%s: %s", tc.in, got.File)
		}
	}
}

// TestJSONStable loads the same files twice and expects identical bytes:
// map order must never leak into the output.
func TestJSONStable(t *testing.T) {
	ws, opts := testWorkspace(t)
	write(t, filepath.Join(ws, ".jp", "config.toml"), `
[conversation.tools.b]
source = "local"
access.commands = { git = {}, cargo = { args = [["b"]] }, awk = {} }
access.fs = [{ path = ".", read = true, write = true, execute = false }]
[conversation.tools.a]
source = "local"
access.net = [{ host = "h", port = 1, scheme = "https", allow = true }]
[conversation.tools.'*']
run = "ask"
`)
	var outs [2][]byte
	for i := range outs {
		l, err := Load(opts)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := l.WriteJSON(&b, PrintOptions{}); err != nil {
			t.Fatal(err)
		}
		outs[i] = b.Bytes()
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Fatalf("output differs:\n%s\n---\n%s", outs[0], outs[1])
	}
	if !bytes.Contains(outs[0], []byte(`"awk"`)) || bytes.Index(outs[0], []byte(`"awk"`)) > bytes.Index(outs[0], []byte(`"git"`)) {
		t.Errorf("commands not sorted:\n%s", outs[0])
	}
}

// TestToolKeyIsTOML: the key `config` prints for a tool is one a user can
// paste into a config file (Go's %q would write \x7f, which TOML rejects).
func TestToolKeyIsTOML(t *testing.T) {
	for name, want := range map[string]string{
		"fs_read_file": "conversation.tools.fs_read_file",
		"a.b":          `conversation.tools."a.b"`,
		"del\x7f":      `conversation.tools."del\u007F"`,
	} {
		if got := toolKey(name); got != want {
			t.Errorf("toolKey(%q) = %s, want %s", name, got, want)
		}
	}
}
