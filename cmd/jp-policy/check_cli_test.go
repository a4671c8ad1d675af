package main

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/policy"
	"github.com/jp-policy/jp-policy/internal/policytest"
)

// TestCheckCLIMatchesAPI runs `check --access --json` in-process over
// random trees and policies and requires the exact JSON and exit code the
// policy API gives for the same question.
func TestCheckCLIMatchesAPI(t *testing.T) {
	seeds := 6
	if testing.Short() {
		seeds = 2
	}
	for seed := 0; seed < seeds; seed++ {
		r := rand.New(rand.NewSource(int64(1000 + seed)))
		base, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		w, err := policytest.New(r, base)
		if err != nil {
			t.Fatal(err)
		}
		access := filepath.Join(base, "access.json")
		data, err := json.Marshal(w.Policy)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(access, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := policy.NewChecker(w.Root, w.Policy)
		if err != nil {
			t.Fatal(err)
		}
		for i, in := range w.Inputs {
			if strings.HasPrefix(in, "-") {
				continue
			}
			cp := policy.Capabilities[i%len(policy.Capabilities)]
			compareCLI(t, c.CheckFS(cp, in), "--root", w.Root, "--access", access, "--json", "fs", cp.String(), in)
		}
	}
}

// TestCheckCLIMatchesAPIOtherTypes does the same for net, env, config and
// command questions against one fixed policy.
func TestCheckCLIMatchesAPIOtherTypes(t *testing.T) {
	root := t.TempDir()
	p := &policy.AccessPolicy{
		Net: []policy.NetRule{{Host: "api.github.com", Allow: true}, {Host: "api.github.com", PathPrefix: new("/admin")}},
		Env: []policy.EnvRule{{Name: "AWS_*", Read: true}, {Name: "AWS_SECRET_ACCESS_KEY"}},
		Config: []policy.ConfigRule{
			{Path: "conversation", Read: true},
			{Path: "conversation.tools", Read: true, Write: policy.ConfigWriteInsecureAllow},
		},
		Commands: map[string]policy.CommandRule{"cargo": {Args: [][]string{{"check", "**"}}}},
	}
	access := filepath.Join(t.TempDir(), "access.json")
	data, _ := json.Marshal(p)
	if err := os.WriteFile(access, data, 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := policy.NewChecker(root, p)
	if err != nil {
		t.Fatal(err)
	}
	base := []string{"--root", root, "--access", access, "--json"}
	for _, u := range []string{"https://api.github.com/x", "https://api.github.com/admin/x", "https://api.github.com@evil.com/", "http://api.github.com:8080/", "nope"} {
		compareCLI(t, c.CheckNet(u), append(base, "net", u)...)
	}
	for _, n := range []string{"AWS_REGION", "AWS_SECRET_ACCESS_KEY", "HOME", "A*"} {
		compareCLI(t, c.CheckEnv(n), append(base, "env", n)...)
	}
	for _, op := range []string{"read", "write", "delete"} {
		for _, path := range []string{"conversation.title", "conversation.tools.x", "assistant.model"} {
			compareCLI(t, c.CheckConfig(op, path), append(base, "config", op, path)...)
		}
	}
	for _, argv := range [][]string{{"cargo", "check", "-q"}, {"cargo", "build"}, {"rm", "-rf", "/"}} {
		compareCLI(t, c.CheckCommand(argv), append(append(base, "command", "--"), argv...)...)
	}
}

func compareCLI(t *testing.T, want policy.Decision, args ...string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"check"}, args...), strings.NewReader(""), &stdout, &stderr)
	wantJSON, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	wantCode := exitOK
	if !want.Allowed {
		wantCode = exitFail
	}
	if code != wantCode || strings.TrimSpace(stdout.String()) != string(wantJSON) {
		t.Errorf("check %q:\n exit %d, stdout %s stderr %s\nwant exit %d, %s", args, code, stdout.String(), stderr.String(), wantCode, wantJSON)
	}
}

// TestCheckExitCodes pins the contract: 0 allowed, 1 denied or rejected,
// 2 usage or config error (including no compile pipeline).
func TestCheckExitCodes(t *testing.T) {
	root := t.TempDir()
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", `{"fs":[{"lexical_path":"","read":true}]}`)
	bad := write("bad.json", `{"fs":[{"read":true}]}`)
	saved := compileToolPolicy
	defer func() { compileToolPolicy = saved }()
	compileToolPolicy = nil
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"check", "--root", root, "--access", good, "fs", "read", "x"}, exitOK},
		{[]string{"check", "--root", root, "--access", good, "fs", "update", "x"}, exitFail},
		{[]string{"check", "--root", root, "--access", good, "fs", "read", "/x"}, exitFail},
		{[]string{"check", "--root", root, "--access", bad, "fs", "read", "x"}, exitUsage},
		{[]string{"check", "--root", filepath.Join(root, "missing"), "--access", good, "fs", "read", "x"}, exitUsage},
		{[]string{"check", "--root", root, "--access", good, "fs", "bogus", "x"}, exitUsage},
		{[]string{"check", "--tool", "t", "fs", "read", "x"}, exitUsage},
	} {
		var out, errb bytes.Buffer
		if code := run(tc.args, strings.NewReader(""), &out, &errb); code != tc.code {
			t.Errorf("%q: exit %d, want %d\n%s%s", tc.args, code, tc.code, out.String(), errb.String())
		}
	}
	// With a compile pipeline, its policy is what gets checked.
	compileToolPolicy = func(g *Globals, workspace, tool, approvals string) (string, *policy.AccessPolicy, error) {
		if tool != "reader" {
			return "", nil, os.ErrNotExist
		}
		return root, &policy.AccessPolicy{FS: []policy.FsRule{{LexicalPath: "", Read: new(true)}}}, nil
	}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"check", "--tool", "reader", "fs", "read", "x"}, exitOK},
		{[]string{"check", "--tool", "reader", "fs", "create", "x"}, exitFail},
		{[]string{"check", "--tool", "other", "fs", "read", "x"}, exitUsage},
	} {
		var out, errb bytes.Buffer
		if code := run(tc.args, strings.NewReader(""), &out, &errb); code != tc.code {
			t.Errorf("%q: exit %d, want %d\n%s%s", tc.args, code, tc.code, out.String(), errb.String())
		}
	}
}
