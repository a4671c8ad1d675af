package mount

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/jp-policy/jp-policy/internal/platform"
)

// TestParse covers every form in RFD D43's `--mount` examples and its
// mode-rules table, plus each parse error.
func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Spec
		kind ErrorKind
	}{
		// D43 examples.
		{in: "fork=~/code/forks/serde-yaml", want: Spec{Name: "fork", Path: "~/code/forks/serde-yaml", Mode: ReadOnly}},
		{in: "fork=~/code/forks/serde-yaml:ro", want: Spec{Name: "fork", Path: "~/code/forks/serde-yaml", Mode: ReadOnly}},
		{in: "fs_modify_file:fork=~/code/forks/x:rw", want: Spec{Tool: "fs_modify_file", Name: "fork", Path: "~/code/forks/x", Mode: ReadWrite}},
		{in: "a=/p1", want: Spec{Name: "a", Path: "/p1", Mode: ReadOnly}},
		{in: "b=/p2:ro", want: Spec{Name: "b", Path: "/p2", Mode: ReadOnly}},
		{in: `fs_read_file:fork=C:\code\forks\x:ro`, want: Spec{Tool: "fs_read_file", Name: "fork", Path: `C:\code\forks\x`, Mode: ReadOnly}},
		// Mode rules table.
		{in: "NAME=PATH:rw", kind: KindWriteRequiresTool},
		{in: "NAME=PATH:rwx", kind: KindWriteRequiresTool},
		{in: "t:cache=~/.cache/go-build:rwx", want: Spec{Tool: "t", Name: "cache", Path: "~/.cache/go-build", Mode: ReadWriteExec}},
		{in: "tool:NAME=PATH", want: Spec{Tool: "tool", Name: "NAME", Path: "PATH", Mode: ReadOnly}},
		{in: "tool:NAME=PATH:rw", want: Spec{Tool: "tool", Name: "NAME", Path: "PATH", Mode: ReadWrite}},
		{in: "NAME=PATH:rx", want: Spec{Name: "NAME", Path: "PATH", Mode: ReadExec}},
		{in: "tool:cargo=~/.cargo:rx", want: Spec{Tool: "tool", Name: "cargo", Path: "~/.cargo", Mode: ReadExec}},
		// NAME grammar examples keep NAME as typed.
		{in: "foo/bar/baz=~/code/forks/x", want: Spec{Name: "foo/bar/baz", Path: "~/code/forks/x", Mode: ReadOnly}},
		{in: "../qux/baz=~/code/forks/x", want: Spec{Name: "../qux/baz", Path: "~/code/forks/x", Mode: ReadOnly}},
		// Edges of the grammar.
		{in: `fork=C:\code\x`, want: Spec{Name: "fork", Path: `C:\code\x`, Mode: ReadOnly}},
		{in: `fork=C:`, want: Spec{Name: "fork", Path: `C:`, Mode: ReadOnly}},
		{in: "fork=/a=b", want: Spec{Name: "fork", Path: "/a=b", Mode: ReadOnly}},
		{in: "fork=/x:ro:rw", kind: KindWriteRequiresTool},
		{in: "t:fork=/x:ro:rw", want: Spec{Tool: "t", Name: "fork", Path: "/x:ro", Mode: ReadWrite}},
		// A mode typo is refused as one, not read as part of a path
		// that then "does not exist"; a colon that is part of the path
		// is kept by ending the path with its mode.
		{in: "fork=/x:RW", kind: KindInvalidMode},
		{in: "t:fork=/x:wx", kind: KindInvalidMode},
		{in: "fork=/x:w", kind: KindInvalidMode},
		{in: "fork=/x:RW:ro", want: Spec{Name: "fork", Path: "/x:RW", Mode: ReadOnly}},
		{in: "fork=/a:b/c", want: Spec{Name: "fork", Path: "/a:b/c", Mode: ReadOnly}},
		{in: "fork=/x:read", want: Spec{Name: "fork", Path: "/x:read", Mode: ReadOnly}},
		{in: "fork=/x:", want: Spec{Name: "fork", Path: "/x:", Mode: ReadOnly}},
		{in: "_t9:a:b=/x", want: Spec{Tool: "_t9", Name: "a:b", Path: "/x", Mode: ReadOnly}},
		// Errors.
		{in: "fork", kind: KindMissingEquals},
		{in: "", kind: KindMissingEquals},
		{in: "Fs:fork=/x", kind: KindInvalidTool},
		{in: "9t:fork=/x", kind: KindInvalidTool},
		{in: ":fork=/x", kind: KindInvalidTool},
		{in: "fs-read:fork=/x", kind: KindInvalidTool},
		{in: `C:\ws\fork=/x`, kind: KindInvalidTool},
		{in: "=/x", kind: KindEmpty},
		{in: "t:=/x", kind: KindEmpty},
		{in: "fork=", kind: KindEmpty},
		{in: "fork=:ro", kind: KindEmpty},
		{in: "t:fork=:rw", kind: KindEmpty},
		{in: "=", kind: KindEmpty},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse(tt.in)
			if tt.kind != "" {
				var me *Error
				if !errors.As(err, &me) || me.Kind != tt.kind {
					t.Fatalf("Parse(%q) = %+v, %v; want error kind %s", tt.in, got, err, tt.kind)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Parse(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			}
		})
	}
}

// TestResolveName covers RFD D43's NAME examples: a workspace at ws with
// subdirectories foo/bar/ and qux/.
func TestResolveName(t *testing.T) {
	ws := filepath.FromSlash("/ws")
	if platform.Host == platform.Windows {
		ws = `C:\ws`
	}
	at := func(rel string) string { return filepath.Join(ws, filepath.FromSlash(rel)) }
	tests := []struct {
		cwd, name string
		want      string
		kind      ErrorKind
	}{
		{cwd: ws, name: "foo/bar/baz", want: "foo/bar/baz"},
		{cwd: at("foo"), name: "baz", want: "foo/baz"},
		{cwd: at("foo"), name: "../qux/baz", want: "qux/baz"},
		{cwd: at("foo"), name: "../baz", want: "baz"},
		{cwd: ws, name: "../baz", kind: KindOutsideWorkspace},
		{cwd: ws, name: "./a/./b/../c", want: "a/c"},
		{cwd: ws, name: "fork/", want: "fork"},
		{cwd: ws, name: ".", kind: KindOutsideWorkspace},
		{cwd: at("foo"), name: "..", kind: KindOutsideWorkspace},
		{cwd: ws, name: "a/../../ws/fork", want: "fork"},
		{cwd: ws, name: "a/../../ws2/fork", kind: KindOutsideWorkspace},
		{cwd: ws, name: "..foo", want: "..foo"},
		{cwd: ws, name: at("abs/fork"), want: "abs/fork"},
		{cwd: ws, name: filepath.Join(filepath.Dir(ws), "elsewhere"), kind: KindOutsideWorkspace},
		{cwd: ws, name: ".jp", kind: KindManagedStorage},
		{cwd: ws, name: ".jp/x", kind: KindManagedStorage},
		{cwd: at(".jp"), name: "x", kind: KindManagedStorage},
		{cwd: ws, name: ".JP/x", kind: KindManagedStorage},
		{cwd: ws, name: ".jpx", want: ".jpx"},
		{cwd: ws, name: "a/.jp", want: "a/.jp"},
		// A mount named as a config layer would add config from outside.
		{cwd: ws, name: ".jp.toml", kind: KindConfigLayer},
		{cwd: at("sub"), name: ".jp.toml", kind: KindConfigLayer},
		{cwd: ws, name: "sub/.JP.json", kind: KindConfigLayer},
		{cwd: ws, name: ".jp.yaml/x", kind: KindConfigLayer},
		{cwd: ws, name: ".jp.tomlx", want: ".jp.tomlx"},
		{cwd: ws, name: "bad\nname", kind: KindInvalidName},
		{cwd: ws, name: "bad\xffname", kind: KindInvalidName},
		{cwd: filepath.Dir(ws), name: "ws2/x", kind: KindOutsideWorkspace},
	}
	for _, tt := range tests {
		t.Run(tt.cwd+"|"+tt.name, func(t *testing.T) {
			got, err := ResolveName(tt.name, tt.cwd, ws)
			if tt.kind != "" {
				var me *Error
				if !errors.As(err, &me) || me.Kind != tt.kind {
					t.Fatalf("ResolveName(%q) = %q, %v; want kind %s", tt.name, got, err, tt.kind)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ResolveName(%q) = %q, %v; want %q", tt.name, got, err, tt.want)
			}
		})
	}
}
