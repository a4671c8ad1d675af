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
		{"JP_CFG_CONVERSATION_TOOLS", `:{"t": {"access": {"fs": ["a"]}}, "u": {"source": "local"}}`, []string{"t.access.fs=a", "u.source"}},
		// A member name is a key path: tool "t", key access (JP's
		// try_merge_object, assign_to_entry).
		{"JP_CFG_CONVERSATION_TOOLS", `:{"t_access": {"fs": ["a"]}}`, []string{"t.access.fs=a"}},
		{"JP_CFG_CONVERSATION_TOOLS", `:{"t_access_fs": ["a"]}`, []string{"t.access.fs=a"}},
		{"JP_CFG_CONVERSATION_TOOLS_T", `:{"access_fs": ["a"], "enable_state": false}`, []string{"t.access.fs=a", "t.enable.state"}},
		{"JP_CFG_", `:{"conversation_tools_t_access_fs": "a", "assistant": {}}`, []string{"t.access.fs=a"}},
		{"JP_CFG_", `:{"conversation": {"tools": {"t": {"run": "ask"}}}}`, []string{"t.run"}},
		{"JP_CFG_CONVERSATION_TOOLS_*_ENABLE", "false", []string{"*.enable"}},
		// JSON null for a scalar is JP's None: no change in the env layer.
		{"JP_CFG_CONVERSATION_TOOLS_T_RUN", ":null", nil},
		// Only A-Z are lower-cased: U+212A is not "k".
		{"JP_CFG_CONVERSATION_TOOLS_\u212aIT_RUN", "ask", []string{"\u212ait.run"}},
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
	// Assignments JP refuses, or applies into something built before
	// (an index into a list, a part of command), are refused.
	for _, tc := range [][2]string{
		{"JP_CFG_CONVERSATION_TOOLS_FS_READ_FILE_RUN", "ask"},                 // tool "fs", key read_file_run
		{"JP_CFG_CONVERSATION_TOOLS", `:{"fs_read_file": {"enable": false}}`}, // the same, as a member
		{"JP_CFG_CONVERSATION_TOOLS_T_ACCESS_FS_0_WRITE", "true"},
		{"JP_CFG_CONVERSATION_TOOLS_T_COMMAND_PROGRAM", "sh"},
		{"JP_CFG_CONVERSATION_TOOLS_T_ENABLE_BOGUS", "x"},
		{"JP_CFG_CONVERSATION_TOOLS_*", `:{"enable": false}`}, // the defaults have no "" arm
		{"JP_CFG_CONVERSATION_TOOLS_*_ACCESS_FS", "a"},
		{"JP_CFG_CONFIG_LOAD_PATHS_0", "x"},
		{"JP_CFG_", "x"},
	} {
		if es, err := envEntries(tc[0], tc[1]); err == nil {
			t.Errorf("%s=%s: accepted as %+v", tc[0], tc[1], es)
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
	f.Add("JP_CFG_CONVERSATION_TOOLS", `:{"t_access": {"fs": ["a"]}, "u_v": {}}`)
	f.Add("JP_CFG_", `:{"conversation.tools": {"t": {"run": null}}}`)
	f.Add("JP_CFG_CONVERSATION_TOOLS_T_ACCESS_FS_0_WRITE", "true")
	f.Add("JP_CFG_CONVERSATION_TOOLS_\u212aIT_COMMAND_PROGRAM", "sh")
	f.Add("JP_CFG_CONVERSATION_TOOLS_*_ENABLE_STATE", "+:false")
	f.Fuzz(func(t *testing.T, name, value string) {
		es, err := envEntries(name, value)
		if err == nil && !strings.Contains(strings.TrimPrefix(name, EnvPrefix), "__") {
			// JP's form: a tool is the first '_'-separated segment of
			// a name or of an object member's name, never more.
			for _, e := range es {
				if strings.Contains(e.tool, "_") {
					t.Fatalf("%s=%s: tool %q spans segments", name, value, e.tool)
				}
			}
		}
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
	f.Add(`conversation.tools:={"t.access": {"fs": ["a"]}}`)
	f.Add("conversation.tools.t.access.fs.0.write=true")
	f.Add("conversation.tools.t.access_fs=a")
	f.Add("conversation.tools.t.enable:=null")
	f.Add("conversation.tools.t.command.program=sh")
	f.Fuzz(func(t *testing.T, arg string) {
		key, raw, merge, col, val, ok := splitCfgKV(arg)
		if !ok {
			return
		}
		if col < 1 || col > len(arg)+1 || arg[col-1:] != val {
			t.Fatalf("col %d does not point at the value %q in %q", col, val, arg)
		}
		es, err := assignKV("--cfg "+key, key, ".", raw, merge, col, val)
		for _, e := range es {
			if err == nil && strings.Contains(e.tool, ".") {
				t.Fatalf("%s: tool %q spans segments", arg, e.tool)
			}
		}
		if err != nil {
			var list diag.List
			if !errors.As(err, &list) || len(list) == 0 || list[0].Pos.File == "" {
				t.Fatalf("unpositioned error %v", err)
			}
		}
	})
}

// TestCheckOverlap: two assignments of one key, or of a key and a part of
// it, depend on the order JP applies them in; two '+' lists do not.
func TestCheckOverlap(t *testing.T) {
	list := func(merge bool) envAssign {
		return envAssign{tool: "t", key: []string{"access", "fs"}, list: true, merge: merge}
	}
	tests := []struct {
		a, b envAssign
		want bool // refused
	}{
		{envAssign{tool: "t", key: []string{"run"}}, envAssign{tool: "t", key: []string{"run"}}, true},
		{envAssign{tool: "t", key: []string{"enable"}}, envAssign{tool: "t", key: []string{"enable", "state"}}, true},
		{envAssign{tool: "t", key: []string{"enable", "state"}}, envAssign{tool: "t", key: []string{"enable", "allow_toggle"}}, false},
		{envAssign{tool: "t", key: []string{"run"}}, envAssign{tool: "u", key: []string{"run"}}, false},
		{list(true), list(true), false},
		{list(false), list(true), true},
		{list(true), list(false), true},
		{envAssign{key: []string{"config_load_paths"}, list: true}, envAssign{key: []string{"config_load_paths"}, list: true, merge: true}, true},
	}
	for i, tc := range tests {
		seen, err := checkOverlap(nil, "A", tc.a, diag.Position{File: "env:A"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = checkOverlap(seen, "B", tc.b, diag.Position{File: "env:B"})
		if (err != nil) != tc.want {
			t.Errorf("%d: %+v then %+v: err %v, want refused %v", i, tc.a, tc.b, err, tc.want)
		}
	}
}

func TestEnvDuplicates(t *testing.T) {
	block := []byte("PATH=/bin\x00JP_CFG_A=1\x00JP_CFG_B=2\x00JP_CFG_A=3\x00OTHER=1\x00OTHER=2\x00JP_CFG_A=4\x00")
	if got := envDuplicates(block, EnvPrefix); strings.Join(got, ",") != "JP_CFG_A" {
		t.Errorf("got %v", got)
	}
	if got := envDuplicates(nil, EnvPrefix); got != nil {
		t.Errorf("nil block: %v", got)
	}
}

func TestASCIILower(t *testing.T) {
	for in, want := range map[string]string{"ABC_d": "abc_d", "\u212aIT": "\u212ait", "İ": "İ", "": ""} {
		if got := asciiLower(in); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}
