package config

import (
	"errors"
	"testing"

	"github.com/jp-policy/jp-policy/diag"
)

func TestNativePrefix(t *testing.T) {
	tests := []struct {
		in         string
		raw, merge bool
		col        int
		rest       string
	}{
		{"x", false, false, 1, "x"},
		{":[1]", true, false, 2, "[1]"},
		{"+:[1]", true, true, 3, "[1]"},
		{`\:x`, false, false, 2, ":x"},
		{`+\+x`, false, true, 3, "+x"},
		{"", false, false, 1, ""},
	}
	for _, tc := range tests {
		raw, merge, col, rest := nativePrefix(tc.in)
		if raw != tc.raw || merge != tc.merge || col != tc.col || rest != tc.rest {
			t.Errorf("%q: got %v %v %d %q", tc.in, raw, merge, col, rest)
		}
	}
}

func TestEnvEntry(t *testing.T) {
	tests := []struct {
		name, value string
		tool        string
		key         []string
		supported   bool
	}{
		{"JP_CFG_CONVERSATION_TOOLS_BASH_RUN", "ask", "bash", []string{"run"}, true},
		{"JP_CFG_CONVERSATION_TOOLS_FS_READ_FILE_RUN", "ask", "fs", []string{"read", "file", "run"}, false},
		{"JP_CFG_CONVERSATION__TOOLS__FS_READ_FILE__RUN", "ask", "fs_read_file", []string{"run"}, true},
		{"JP_CFG_CONVERSATION_TOOLS_BASH_ACCESS_COMMANDS_GIT", `:{"args": [["status"]]}`, "bash", []string{"access", "commands", "git"}, true},
		{"JP_CFG_CONVERSATION_TOOLS_BASH_ACCESS_COMMANDS_GIT", "status", "bash", []string{"access", "commands", "git"}, false},
		{"JP_CFG_ASSISTANT_MODEL_ID", "x", "", nil, false},
	}
	for _, tc := range tests {
		tool, key, v, err := envEntry(tc.name, tc.value)
		if err != nil || tool != tc.tool || len(key) != len(tc.key) || (v != nil) != tc.supported {
			t.Errorf("%s=%s: %q %v %v %v", tc.name, tc.value, tool, key, v != nil, err)
		}
	}
}

// FuzzEnvEntry asserts that no variable value can panic the env layer and
// that a bad one is a positioned syntax error.
func FuzzEnvEntry(f *testing.F) {
	f.Add("JP_CFG_CONVERSATION_TOOLS_BASH_ACCESS_FS", `:[{"path": "src"}]`)
	f.Add("JP_CFG_CONVERSATION__TOOLS__T__ACCESS__NET", `{ strategy = "replace", value = [] }`)
	f.Add("JP_CFG_CONVERSATION_TOOLS_T_ENABLE", `:true`)
	f.Fuzz(func(t *testing.T, name, value string) {
		_, _, _, err := envEntry(name, value)
		if err != nil {
			var list diag.List
			if !errors.As(err, &list) || len(list) == 0 || list[0].Pos.File == "" {
				t.Fatalf("unpositioned error %v", err)
			}
		}
	})
}
