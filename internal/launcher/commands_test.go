package launcher

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/platform"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// fakeBin writes executable scripts named names into a new directory and
// returns it.
func fakeBin(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCheckCommand(t *testing.T) {
	if platform.Host == platform.Windows {
		t.Skip("PATH lookup differs on Windows")
	}
	bin := fakeBin(t, "cargo", "git")
	other := fakeBin(t, "git")
	t.Setenv("PATH", bin)
	commands := map[string]policy.CommandRule{
		"cargo":                     {Args: [][]string{{"check", "**"}, {"build"}}},
		"git":                       {},
		filepath.Join(other, "git"): {Args: [][]string{{"status"}}},
		"none":                      {Args: [][]string{}},
	}
	tests := []struct {
		name    string
		argv    []string
		wantErr bool
		wantKey string // rule named in the refusal
	}{
		{"prefix with **", []string{"cargo", "check", "--all"}, false, ""},
		{"prefix with ** and no rest", []string{"cargo", "check"}, false, ""},
		{"exact args", []string{"cargo", "build"}, false, ""},
		{"exact args, extra rest", []string{"cargo", "build", "--release"}, true, "cargo"},
		{"wrong subcommand", []string{"cargo", "publish"}, true, "cargo"},
		{"no args against prefixes", []string{"cargo"}, true, "cargo"},
		{"nil args allow anything", []string{"git", "push", "--force"}, false, ""},
		{"by absolute path of the same file", []string{filepath.Join(bin, "git"), "log"}, false, ""},
		{"absolute key", []string{filepath.Join(other, "git"), "status"}, false, ""},
		{"absolute key, wrong args", []string{filepath.Join(other, "git"), "log"}, true, filepath.Join(other, "git")},
		{"unlisted program", []string{"sh", "-c", "x"}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, err := lookPath(tt.argv[0])
			if err != nil {
				// sh lives outside the fake PATH; resolve it absolutely.
				path = "/bin/sh"
			}
			_, err = CheckCommand("tool", commands, tt.argv, path)
			if (err != nil) != tt.wantErr {
				t.Fatalf("CheckCommand(%q) error = %v, wantErr %v", tt.argv, err, tt.wantErr)
			}
			var denied *CommandDeniedError
			if err != nil {
				if !errors.As(err, &denied) {
					t.Fatalf("error %T is not a *CommandDeniedError", err)
				}
				if denied.Key != tt.wantKey {
					t.Errorf("refusal names rule %q, want %q", denied.Key, tt.wantKey)
				}
				if !strings.Contains(err.Error(), "would be allowed by") {
					t.Errorf("refusal %q does not say which rule would allow it", err)
				}
			}
		})
	}
}

func TestCheckCommandNilAllowsAll(t *testing.T) {
	rule, err := CheckCommand("tool", nil, []string{"anything", "at", "all"}, "/nonexistent")
	if err != nil || rule != nil {
		t.Fatalf("nil commands: got %v, %v; want nil, nil", rule, err)
	}
}

func TestCommandDeniedMessage(t *testing.T) {
	e := &CommandDeniedError{Tool: "my tool", Program: "curl", Path: "/usr/bin/curl"}
	want := `it would be allowed by [conversation.tools."my tool".access.commands.curl]`
	if !strings.Contains(e.Error(), want) {
		t.Errorf("message %q lacks %q", e.Error(), want)
	}
}
