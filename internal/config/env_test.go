package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/diag"
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
		{"JP_CFG_CONVERSATION_TOOLS_FS_READ_FILE_RUN", "ask", "", nil, false}, // tool "fs", field read_file_run: not ours
		{"JP_CFG_CONVERSATION__TOOLS__FS_READ_FILE__RUN", "ask", "fs_read_file", []string{"run"}, true},
		{"JP_CFG_CONVERSATION_TOOLS_BASH_ACCESS_COMMANDS_GIT", `:{"args": [["status"]]}`, "bash", []string{"access", "commands", "git"}, true},
		{"JP_CFG_CONVERSATION_TOOLS_BASH_ACCESS_COMMANDS_GIT", "status", "bash", []string{"access", "commands", "git"}, false},
		{"JP_CFG_CONVERSATION_TOOLS_BASH_ACCESS_BOGUS", "x", "bash", []string{"access", "bogus"}, false},
		{"JP_CFG_ASSISTANT_MODEL_ID", "x", "", nil, false},
	}
	for _, tc := range tests {
		es, err := envEntries(tc.name, tc.value)
		if err != nil {
			t.Errorf("%s=%s: %v", tc.name, tc.value, err)
			continue
		}
		if tc.key == nil {
			if len(es) != 0 {
				t.Errorf("%s=%s: %+v, want nothing", tc.name, tc.value, es)
			}
			continue
		}
		if len(es) != 1 || es[0].tool != tc.tool || strings.Join(es[0].key, ".") != strings.Join(tc.key, ".") || (es[0].v != nil) != tc.supported {
			t.Errorf("%s=%s: %+v", tc.name, tc.value, es)
		}
	}
}

// TestNativeLists follows JP's KvAssignment (assignment.rs try_vec,
// try_parse_vec; JP's test_kv_assignment_try_from_cli_env, test_load_envs): a plain string is split on commas, '+' only decides
// between the variables of the env layer, and the object forms reach
// every key of a tool.
func TestNativeLists(t *testing.T) {
	tests := []struct {
		name, value string
		want        []string // tool.key=paths, one per assignment
	}{
		{"JP_CFG_CONVERSATION_TOOLS_T_ACCESS_FS", "src,docs", []string{"t.access.fs=src,docs"}},
		{"JP_CFG_CONVERSATION_TOOLS_T_ACCESS_FS", " src , ,docs ", []string{"t.access.fs=src,docs"}},
		{"JP_CFG_CONVERSATION_TOOLS_T_ACCESS_FS", `:"src,docs"`, []string{"t.access.fs=src,docs"}},
		{"JP_CFG_CONVERSATION_TOOLS_T_ACCESS_FS", `:["src", {"path": "docs", "read": true}]`, []string{"t.access.fs=src,docs"}},
		{"JP_CFG_CONVERSATION_TOOLS_T_ACCESS", `:{"fs": ["a"], "env": "HOME,PATH"}`, []string{"t.access.fs=a", "t.access.env=HOME,PATH"}},
		{"JP_CFG_CONVERSATION_TOOLS_T", `:{"run": "ask", "access": {"fs": [{"path": "a"}]}}`, []string{"t.run", "t.access.fs=a"}},
		{"JP_CFG_CONVERSATION_TOOLS", `:{"t": {"access": {"fs": ["a"]}}, "u_v": {"source": "local"}}`, []string{"t.access.fs=a", "u_v.source"}},
		{"JP_CFG_CONVERSATION", `:{"title": {}, "tools": {"t": {"access": {"fs": ["a"]}}}}`, []string{"t.access.fs=a"}},
		{"JP_CFG_CONVERSATION_TOOLS_T_ENABLE_STATE", "false", []string{"t.enable.state"}},
		{"JP_CFG_CONVERSATION_TOOLS_T_ENABLE_ALLOW_TOGGLE", "never", []string{"t.enable.allow_toggle"}},
	}
	for _, tc := range tests {
		es, err := envEntries(tc.name, tc.value)
		if err != nil {
			t.Errorf("%s=%s: %v", tc.name, tc.value, err)
			continue
		}
		var got []string
		for _, e := range es {
			s := e.tool + "." + strings.Join(e.key, ".")
			if e.list {
				var paths []string
				for _, it := range e.v.Items {
					for _, k := range []string{"path", "name"} {
						if n := it.Get(k); n != nil {
							paths = append(paths, n.Str)
						}
					}
				}
				s += "=" + strings.Join(paths, ",")
			}
			got = append(got, s)
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s=%s: got %v, want %v", tc.name, tc.value, got, tc.want)
		}
	}
	// A table for a list is refused as JP refuses it (try_vec wants a
	// string or an array).
	if _, err := envEntries("JP_CFG_CONVERSATION_TOOLS_T_ACCESS_FS", `:{"strategy": "replace", "value": []}`); err == nil {
		t.Error("object value for a list accepted")
	}
}

// FuzzEnvEntry asserts that no variable value can panic the env layer and
// that a bad one is a positioned syntax error.
func FuzzEnvEntry(f *testing.F) {
	f.Add("JP_CFG_CONVERSATION_TOOLS_BASH_ACCESS_FS", `:[{"path": "src"}]`)
	f.Add("JP_CFG_CONVERSATION__TOOLS__T__ACCESS__NET", `{ strategy = "replace", value = [] }`)
	f.Add("JP_CFG_CONVERSATION_TOOLS_T_ENABLE", `:true`)
	f.Add("JP_CFG_CONVERSATION_TOOLS_T_ACCESS_FS", ` src, ,docs`)
	f.Add("JP_CFG_CONVERSATION_TOOLS", `:{"t": {"access": {"fs": ["a", {"path": "b"}]}}}`)
	f.Add("JP_CFG_CONVERSATION", `:{"tools": {"t": {"enable": {"state": false}}}}`)
	f.Fuzz(func(t *testing.T, name, value string) {
		_, err := envEntries(name, value)
		if err != nil {
			var list diag.List
			if !errors.As(err, &list) || len(list) == 0 || list[0].Pos.File == "" {
				t.Fatalf("unpositioned error %v", err)
			}
		}
	})
}

// FuzzCfgKV asserts that no --cfg KEY=VALUE argument can panic the
// assignment, that the key never keeps its modifiers, and that a bad
// value is a positioned error.
func FuzzCfgKV(f *testing.F) {
	f.Add("conversation.tools.t.access.fs=src,docs")
	f.Add(`conversation.tools.t.access.fs+:=[{"path": "a"}]`)
	f.Add(`conversation.tools:={"t": {"run": "ask"}}`)
	f.Add("=x")
	f.Fuzz(func(t *testing.T, arg string) {
		key, raw, merge, col, val, ok := splitCfgKV(arg)
		if !ok {
			return
		}
		if col < 1 || col > len(arg)+1 || arg[col-1:] != val {
			t.Fatalf("col %d does not point at the value %q in %q", col, val, arg)
		}
		_, err := assignKV("--cfg "+key, key, ".", raw, merge, col, val)
		if err != nil {
			var list diag.List
			if !errors.As(err, &list) || len(list) == 0 || list[0].Pos.File == "" {
				t.Fatalf("unpositioned error %v", err)
			}
		}
	})
}
