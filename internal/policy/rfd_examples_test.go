package policy

import (
	"strings"
	"testing"
)

// RFD 075 "Extending AccessPolicy with CommandRule": the cargo_check and
// my_script examples.
func TestRFD075Examples(t *testing.T) {
	ws := tmp(t)
	tree(t, ws, "src/main.rs")
	cargo := mustChecker(t, ws, &AccessPolicy{
		FS:       []FsRule{{LexicalPath: "", Read: new(true), Write: new(true)}},
		Commands: map[string]CommandRule{"cargo": {Args: [][]string{{"check", "**"}}}},
	})
	for argv, want := range map[string]bool{"cargo check": true, "cargo check --workspace": true, "cargo build": false, "sh -c x": false} {
		if d := cargo.CheckCommand(splitArgs(argv)); d.Allowed != want {
			t.Errorf("cargo_check: %s = %v", argv, d.Allowed)
		}
	}
	runFS(t, cargo, []fsCase{{Update, "src/main.rs", true, "", "."}, {Execute, "src/main.rs", false, "denied", "."}})

	script := mustChecker(t, ws, &AccessPolicy{
		FS:  []FsRule{{LexicalPath: "", Read: new(true), Write: new(true)}},
		Net: []NetRule{{Host: "api.example.com", Scheme: new("https"), Allow: true}},
		Env: []EnvRule{{Name: "DEPLOY_TOKEN", Read: true}},
	})
	for u, want := range map[string]bool{"https://api.example.com/deploy": true, "http://api.example.com/deploy": false, "https://api.example.com:444/": false, "https://example.com/": false} {
		if d := script.CheckNet(u); d.Allowed != want {
			t.Errorf("my_script: %s = %v", u, d.Allowed)
		}
	}
	for n, want := range map[string]bool{"DEPLOY_TOKEN": true, "DEPLOY_TOKEN2": false, "HOME": false} {
		if d := script.CheckEnv(n); d.Allowed != want {
			t.Errorf("my_script: env %s = %v", n, d.Allowed)
		}
	}
}

func splitArgs(s string) []string { return strings.Fields(s) }

// RFD 078 "access.config": the four tools of the first example, and the
// sensitive wildcard path.
func TestRFD078Examples(t *testing.T) {
	ws := tmp(t)
	tools := map[string]ConfigRule{
		"change_model":         {Path: "assistant.model", Read: true, Write: ConfigWriteAllow, Apply: ApplyAsk},
		"summarize_attachment": {Path: "conversation.attachments", Read: true},
		"augment_attachments":  {Path: "conversation.attachments", Read: true, Write: ConfigWriteAllow},
		"toggle_tools":         {Path: "conversation.tools", Read: true, Write: ConfigWriteInsecureAllow, Delete: true, Apply: ApplyAsk},
		"sensitive":            {Path: "conversation.tools.*.access", Read: true, Write: ConfigWriteInsecureAllow},
	}
	for _, tc := range []struct {
		tool, op, path string
		allow          bool
	}{
		{"change_model", "read", "assistant.model", true},
		{"change_model", "write", "assistant.model", true},
		{"change_model", "delete", "assistant.model", false},
		{"change_model", "read", "assistant", false},
		{"summarize_attachment", "read", "conversation.attachments", true},
		{"summarize_attachment", "write", "conversation.attachments", false},
		{"augment_attachments", "write", "conversation.attachments", true},
		{"augment_attachments", "delete", "conversation.attachments", false},
		{"toggle_tools", "write", "conversation.tools.fs_read_file.enable", true},
		{"toggle_tools", "delete", "conversation.tools.fs_read_file", true},
		{"sensitive", "write", "conversation.tools.fs_modify_file.access", true},
		{"sensitive", "read", "conversation.tools.foo.access.fs", true},
		{"sensitive", "read", "conversation.tools.foo", false},
		{"sensitive", "read", "conversation.tools.a.b.access", false},
	} {
		c := mustChecker(t, ws, &AccessPolicy{Config: []ConfigRule{tools[tc.tool]}})
		d := c.CheckConfig(tc.op, tc.path)
		if d.Allowed != tc.allow {
			t.Errorf("%s: %s %s = %v", tc.tool, tc.op, tc.path, d.Allowed)
		}
		if d.Allowed && d.Rule.(ConfigRule).Apply != ApplyAsk && tools[tc.tool].Apply == "" {
			t.Errorf("%s: apply not defaulted to ask", tc.tool)
		}
	}
}
