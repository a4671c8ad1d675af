package policy

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// RFD 076 "Network rules" and the hardening cases.
func TestCheckNet(t *testing.T) {
	ws := tmp(t)
	c := mustChecker(t, ws, &AccessPolicy{Net: []NetRule{
		{Host: "api.github.com", Allow: true},
		{Host: "api.github.com", PathPrefix: new("/admin"), Allow: false},
		{Host: "münchen.de", Allow: true},
		{Host: "Example.ORG", Scheme: new("https"), Allow: true},
		{Host: "alt.example", Port: up(8443), Allow: true},
		{Host: "[::1]", Scheme: new("http"), Port: up(8080), Allow: true},
		{Host: "tie.example", Allow: false},
		{Host: "tie.example", Allow: true},
		{Host: "files.example", PathPrefix: new("/pub"), Allow: true},
	}})
	for _, tc := range []struct {
		url   string
		allow bool
		kind  string
	}{
		{"https://api.github.com/repos", true, ""},
		{"https://api.github.com/admin/users", false, "denied"},
		{"https://api.github.com/admin", false, "denied"},
		{"https://api.github.com/administration", true, ""},
		{"https://api.github.com/x/../admin/users", false, "denied"},
		{"https://api.github.com.evil.com/", false, "denied"},
		{"https://example.com", false, "denied"},
		{"https://api.github.com@evil.com/", false, "denied"},
		{"https://evil.com@api.github.com/", true, ""},
		{"https://api.github.com:8443/", false, "denied"},
		{"https://api.github.com:443/", true, ""},
		{"http://api.github.com/", true, ""},
		{"http://api.github.com:443/", false, "denied"},
		{"https://API.GitHub.COM/repos", true, ""},
		{"https://xn--mnchen-3ya.de/", true, ""},
		{"https://MÜNCHEN.de/", true, ""},
		{"https://example.org/", true, ""},
		{"http://example.org/", false, "denied"},
		{"https://alt.example:8443/", true, ""},
		{"https://alt.example/", false, "denied"},
		{"http://[::1]:8080/", true, ""},
		{"http://[0:0::1]:8080/", true, ""},
		{"https://tie.example/", true, ""},
		{"https://files.example/pub", true, ""},
		{"https://files.example/pub/a", true, ""},
		{"https://files.example/public", false, "denied"},
		{"https://files.example/pub/../private", false, "denied"},
		{"https://files.example/pub/%2e%2e/private", false, "denied"},
		{"not a url", false, "invalid"},
		{"api.github.com", false, "invalid"},
		{"https:///path", false, "invalid"},
		{"https://api.github.com:99999/", false, "invalid"},
		{"https://api.github.com\\@evil.com/", false, "invalid"},
	} {
		d := c.CheckNet(tc.url)
		if d.Allowed != tc.allow || kindOf(d) != tc.kind {
			t.Errorf("CheckNet(%q) = %v, %v; want %v %s", tc.url, d.Allowed, d.Err, tc.allow, tc.kind)
		}
	}
	// Default policy denies the network; an empty list is unrestricted.
	def := Default()
	c = mustChecker(t, ws, &def)
	if d := c.CheckNet("https://api.github.com/"); d.Allowed {
		t.Error("default policy allowed the network")
	}
	c = mustChecker(t, ws, &AccessPolicy{})
	if d := c.CheckNet("https://api.github.com/"); !d.Allowed {
		t.Error("empty net list denied")
	}
}

func TestNormalizeHostAndValidateNetRule(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"API.GitHub.com", "api.github.com"},
		{"münchen.de", "xn--mnchen-3ya.de"},
		{"xn--mnchen-3ya.de", "xn--mnchen-3ya.de"},
		{"127.0.0.1", "127.0.0.1"},
		{"[::1]", "::1"},
		{"svc_a.internal", "svc_a.internal"},
		{"*.github.com", ""},
		{"api.github.com/x", ""},
		{"user@host", ""},
		{"host:443", ""},
		{"", ""},
		{"a b", ""},
	} {
		got, err := NormalizeHost(tc.in)
		if tc.want == "" {
			if err == nil {
				t.Errorf("NormalizeHost(%q) = %q, want error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("NormalizeHost(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	bad := []NetRule{
		{Host: "*.x.com", Allow: true},
		{Host: "x.com", Scheme: new("ht tp")},
		{Host: "x.com", PathPrefix: new("admin")},
		{Host: "x.com", Scheme: new("gopher")}, // no default port and no port
	}
	for _, r := range bad {
		if ValidateNetRule(r) == nil {
			t.Errorf("ValidateNetRule(%+v) = nil", r)
		}
	}
	if err := ValidateNetRule(NetRule{Host: "x.com", Scheme: new("gopher"), Port: up(70)}); err != nil {
		t.Error(err)
	}
	if p, ok := DefaultPort("HTTPS"); !ok || p != 443 {
		t.Error("DefaultPort(HTTPS)")
	}
	if _, err := NewChecker(tmp(t), &AccessPolicy{Net: []NetRule{{Host: "a/b"}}}); err == nil {
		t.Error("NewChecker accepted an unparsable host")
	}
}

// RFD 076 "Environment variable rules" and the Risks section.
func TestEnv(t *testing.T) {
	rules := []EnvRule{
		{Name: "GITHUB_TOKEN", Read: true},
		{Name: "AWS_*", Read: true},
		{Name: "AWS_SECRET_ACCESS_KEY", Read: false},
		{Name: "AWS_SEC*", Read: false},
		{Name: "AWS_SECRET_*", Read: true},
		{Name: "AWS_TOKEN*", Read: false},
		{Name: "AWS_TOKEN", Read: true},
		{Name: "TIE*", Read: true},
		{Name: "TIE*", Read: false},
	}
	for _, tc := range []struct {
		name  string
		allow bool
		rule  string
	}{
		{"GITHUB_TOKEN", true, "GITHUB_TOKEN"},
		{"GITHUB_TOKEN_LOG", false, ""},
		{"AWS_REGION", true, "AWS_*"},
		{"AWS_SECRET_ACCESS_KEY", false, "AWS_SECRET_ACCESS_KEY"},
		{"AWS_SECRET_KEY", true, "AWS_SECRET_*"},
		{"AWS_SECURITY", false, "AWS_SEC*"},
		{"AWS_TOKEN", true, "AWS_TOKEN"},
		{"AWS_TOKEN_LOG", false, "AWS_TOKEN*"},
		{"HOME", false, ""},
		{"TIE_1", false, "TIE*"},
	} {
		r, ok := MatchEnv(rules, tc.name)
		got := ""
		if r != nil {
			got = r.Name
		}
		if ok != tc.allow || got != tc.rule {
			t.Errorf("MatchEnv(%q) = %q, %v; want %q, %v", tc.name, got, ok, tc.rule, tc.allow)
		}
	}
	for _, n := range []string{"", "A*B", "*A", "A=B", "A\x00", "**"} {
		if ValidateEnvName(n) == nil {
			t.Errorf("ValidateEnvName(%q) = nil", n)
		}
	}
	for _, n := range []string{"A", "A*", "*", "LC_*"} {
		if err := ValidateEnvName(n); err != nil {
			t.Errorf("ValidateEnvName(%q): %v", n, err)
		}
	}
	ws := tmp(t)
	def := Default()
	c := mustChecker(t, ws, &def)
	for n, want := range map[string]bool{"PATH": true, "HOME": true, "USER": true, "LANG": true, "LC_ALL": true, "GITHUB_TOKEN": false, "LANGUAGE": false} {
		if d := c.CheckEnv(n); d.Allowed != want {
			t.Errorf("default CheckEnv(%s) = %v", n, d.Allowed)
		}
	}
	if d := c.CheckEnv("A*"); kindOf(d) != "invalid" {
		t.Errorf("CheckEnv(A*) = %v", d.Err)
	}
	if _, err := NewChecker(ws, &AccessPolicy{Env: []EnvRule{{Name: "A*B"}}}); err == nil {
		t.Error("NewChecker accepted a mid-name '*'")
	}
}

// TestConfigRuleMeaning: RFD 078 makes write = true on a sensitive path
// and `*` after a non-map config errors in any access object, so
// `check --access` refuses them as `check --tool` does (lint JP108, JP109).
func TestConfigRuleMeaning(t *testing.T) {
	ws := tmp(t)
	tests := []struct {
		rule ConfigRule
		bad  string // "" = accepted
	}{
		{ConfigRule{Path: "conversation.tools", Write: ConfigWriteAllow}, "sensitive"},
		{ConfigRule{Path: "conversation.tools.t.access.fs", Write: ConfigWriteAllow}, "sensitive"},
		{ConfigRule{Path: "conversation.tools", Write: ConfigWriteInsecureAllow}, ""},
		{ConfigRule{Path: "conversation.tools.*.access", Read: true}, ""},
		{ConfigRule{Path: "assistant.*", Read: true}, "fixed field names"},
		{ConfigRule{Path: "*", Read: true}, "fixed field names"},
		{ConfigRule{Path: "providers.mcp.*.command", Read: true}, ""},
	}
	for _, tc := range tests {
		_, err := NewChecker(ws, &AccessPolicy{Config: []ConfigRule{tc.rule}})
		var ce *ConfigRuleError
		switch {
		case tc.bad == "" && err != nil:
			t.Errorf("%+v: %v", tc.rule, err)
		case tc.bad != "" && (!errors.As(err, &ce) || !strings.Contains(err.Error(), tc.bad)):
			t.Errorf("%+v: err = %v, want a ConfigRuleError about %s", tc.rule, err, tc.bad)
		}
	}
}

// RFD 078 access.config examples.
func TestConfig(t *testing.T) {
	ws := tmp(t)
	c := mustChecker(t, ws, &AccessPolicy{Config: []ConfigRule{
		{Path: "conversation", Read: true},
		{Path: "conversation.tools", Read: true, Write: ConfigWriteInsecureAllow},
		{Path: "conversation.tools.toggle_tools.access"},
		{Path: "assistant.model", Read: true, Write: ConfigWriteAllow, Apply: ApplyAsk},
		{Path: "conversation.attachments", Read: true, Write: ConfigWriteAllow},
		{Path: "providers.mcp.*.access", Delete: true, Apply: ApplyUnattended},
	}})
	for _, tc := range []struct {
		op, path string
		allow    bool
		rule     string
	}{
		{"read", "conversation.attachments", true, "conversation.attachments"},
		{"write", "conversation.attachments", true, "conversation.attachments"},
		{"delete", "conversation.attachments", false, "conversation.attachments"},
		{"read", "conversation.title", true, "conversation"},
		{"write", "conversation.title", false, "conversation"},
		{"write", "conversation.tools.fs_read_file", true, "conversation.tools"},
		{"read", "conversation.tools.fs_read_file", true, "conversation.tools"},
		{"read", "conversation.tools.toggle_tools.access.config", false, "conversation.tools.toggle_tools.access"},
		{"write", "assistant.model", true, "assistant.model"},
		{"read", "assistant.name", false, ""},
		{"read", "conversationx", false, ""},
		{"delete", "providers.mcp.foo.access", true, "providers.mcp.*.access"},
		{"delete", "providers.mcp.foo.bar.access", false, ""},
		{"delete", "providers.mcp.foo.access.fs", true, "providers.mcp.*.access"},
	} {
		d := c.CheckConfig(tc.op, tc.path)
		got := ""
		if r, ok := d.Rule.(ConfigRule); ok {
			got = r.Path
			if r.Apply == "" {
				t.Errorf("%s %s: apply not defaulted", tc.op, tc.path)
			}
		}
		if d.Allowed != tc.allow || got != tc.rule {
			t.Errorf("CheckConfig(%s, %s) = %v %q (%v); want %v %q", tc.op, tc.path, d.Allowed, got, d.Err, tc.allow, tc.rule)
		}
	}
	// No rules: no config access, even for an unrestricted tool.
	for _, p := range []*AccessPolicy{nil, {}} {
		if d := mustChecker(t, ws, p).CheckConfig("read", "assistant.model"); d.Allowed {
			t.Error("config allowed without rules")
		}
	}
	if d := c.CheckConfig("read", "conversation.*"); kindOf(d) != "invalid" {
		t.Errorf("wildcard target: %v", d.Err)
	}
	for _, p := range []string{"", "a..b", "a.b*", ".a", "a."} {
		if ValidateConfigPath(p) == nil {
			t.Errorf("ValidateConfigPath(%q) = nil", p)
		}
	}
	if r := (ConfigRule{}); r.EffectiveApply() != ApplyAsk {
		t.Error("apply default")
	}
}

func TestConfigWriteJSON(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want ConfigWrite
		out  string
	}{
		{"false", ConfigWriteDeny, "false"},
		{"null", ConfigWriteDeny, "false"},
		{"true", ConfigWriteAllow, "true"},
		{`"insecure_allow"`, ConfigWriteInsecureAllow, `"insecure_allow"`},
	} {
		var w ConfigWrite
		if err := json.Unmarshal([]byte(tc.in), &w); err != nil || w != tc.want {
			t.Errorf("unmarshal %s = %q, %v", tc.in, w, err)
		}
		b, err := json.Marshal(w)
		if err != nil || string(b) != tc.out {
			t.Errorf("marshal %q = %s, %v", w, b, err)
		}
	}
	var w ConfigWrite
	for _, bad := range []string{`"true"`, `"yes"`, `1`} {
		if json.Unmarshal([]byte(bad), &w) == nil {
			t.Errorf("accepted %s", bad)
		}
	}
	if _, err := json.Marshal(ConfigWrite("bogus")); err == nil {
		t.Error("marshalled bogus write")
	}
}

// fakeLookup is PATH as TestCommands sees it.
func fakeLookup(name string) string {
	return map[string]string{"cargo": "/home/u/.cargo/bin/cargo", "ls": "/usr/bin/ls", "git": "/usr/bin/git"}[name]
}

// RFD 075 commands.
func TestCommands(t *testing.T) {
	cmds := map[string]CommandRule{
		"cargo":        {Args: [][]string{{"check", "**"}}},
		"git":          {Args: [][]string{{"status"}, {"diff", "--stat"}}},
		"ls":           {},
		"/usr/bin/env": {Args: [][]string{{}}},
		"none":         {Args: [][]string{}},
	}
	for _, tc := range []struct {
		argv     []string
		resolved string
		allow    bool
		program  string
	}{
		{[]string{"cargo", "check"}, "", true, "cargo"},
		{[]string{"cargo", "check", "--all", "-q"}, "", true, "cargo"},
		{[]string{"cargo", "build"}, "", false, "cargo"},
		{[]string{"cargo"}, "", false, "cargo"},
		// An explicit path is the listed program only when it is the file
		// PATH finds for the name (the fake lookup below).
		{[]string{"/home/u/.cargo/bin/cargo", "check"}, "/home/u/.cargo/bin/cargo", true, "cargo"},
		{[]string{"./cargo", "check"}, "/ws/cargo", false, ""},
		{[]string{"/tmp/evil/cargo", "check"}, "/tmp/evil/cargo", false, ""},
		{[]string{"git", "status"}, "", true, "git"},
		{[]string{"git", "status", "-s"}, "", false, "git"},
		{[]string{"git", "diff", "--stat"}, "", true, "git"},
		{[]string{"ls", "-la", "/"}, "", true, "ls"},
		{[]string{"rm", "-rf", "/"}, "", false, ""},
		{[]string{"env"}, "/usr/bin/env", true, "/usr/bin/env"},
		{[]string{"env", "x"}, "/usr/bin/env", false, "/usr/bin/env"},
		{[]string{"none"}, "", false, "none"},
		{[]string{"python3"}, "/usr/bin/ls", true, "ls"},
		{nil, "", false, ""},
	} {
		lookupProgram = fakeLookup
		p, ok := MatchCommand(cmds, tc.argv, tc.resolved)
		lookupProgram = ResolveProgram
		if ok != tc.allow || p != tc.program {
			t.Errorf("MatchCommand(%q, %q) = %q, %v; want %q, %v", tc.argv, tc.resolved, p, ok, tc.program, tc.allow)
		}
	}
	if p, ok := MatchCommand(nil, []string{"anything"}, ""); !ok || p != "anything" {
		t.Error("nil map must allow any program")
	}
	if ValidateCommandArgs([][]string{{"**", "x"}}) == nil {
		t.Error("'**' in the middle accepted")
	}
	if err := ValidateCommandArgs([][]string{{"check", "**"}, {}}); err != nil {
		t.Error(err)
	}
	ws := tmp(t)
	c := mustChecker(t, ws, &AccessPolicy{Commands: cmds})
	if d := c.CheckCommand([]string{"cargo", "build"}); d.Allowed || kindOf(d) != "denied" {
		t.Errorf("CheckCommand cargo build = %+v", d)
	}
	if d := c.CheckCommand([]string{"cargo", "check", "-q"}); !d.Allowed {
		t.Errorf("CheckCommand cargo check = %+v", d)
	}
	if d := mustChecker(t, ws, nil).CheckCommand([]string{"anything"}); !d.Allowed {
		t.Error("nil policy denied a command")
	}
	if _, err := NewChecker(ws, &AccessPolicy{Commands: map[string]CommandRule{"x": {Args: [][]string{{"**", "a"}}}}}); err == nil {
		t.Error("NewChecker accepted bad args")
	}
}

func TestDefault(t *testing.T) {
	d := Default()
	if len(d.FS) != 1 || d.FS[0].LexicalPath != "" || !d.FS[0].CanRead() || !d.FS[0].CanCreate() || !d.FS[0].CanUpdate() || !d.FS[0].CanDelete() || d.FS[0].CanExecute() {
		t.Errorf("default fs = %+v", d.FS)
	}
	if d.Commands != nil {
		t.Error("default commands must be unrestricted (nil)")
	}
	if err := Validate(&d); err != nil {
		t.Error(err)
	}
	b, _ := json.Marshal(d)
	want := `{"fs":[{"lexical_path":"","external":false,"approved_target":null,"read":true,"write":true,"create":null,"update":null,"delete":null,"execute":null}],"net":[{"host":"invalid","scheme":null,"port":null,"path_prefix":null,"allow":false}],"env":[{"name":"HOME","read":true},{"name":"LANG","read":true},{"name":"LC_ADDRESS","read":true},{"name":"LC_ALL","read":true},{"name":"LC_COLLATE","read":true},{"name":"LC_CTYPE","read":true},{"name":"LC_IDENTIFICATION","read":true},{"name":"LC_MEASUREMENT","read":true},{"name":"LC_MESSAGES","read":true},{"name":"LC_MONETARY","read":true},{"name":"LC_NAME","read":true},{"name":"LC_NUMERIC","read":true},{"name":"LC_PAPER","read":true},{"name":"LC_TELEPHONE","read":true},{"name":"LC_TIME","read":true},{"name":"PATH","read":true},{"name":"USER","read":true}]}`
	if string(b) != want {
		t.Errorf("Default JSON:\n%s\nwant\n%s", b, want)
	}
}

func TestParseAccess(t *testing.T) {
	for _, tc := range []struct {
		in      string
		nilP    bool
		wantErr bool
	}{
		{"null", true, false},
		{`{}`, false, false},
		{`{"fs":[]}`, false, false},
		{`{"fs":[{"lexical_path":"src","read":true}],"net":[],"env":[],"commands":{"cargo":{"args":[["check","**"]],"envs":[]}},"config":[{"path":"a","write":"insecure_allow"}]}`, false, false},
		{`{"fs":[{"read":true}]}`, false, true},
		{`{"fs":[{"lexical_path":null,"read":true}]}`, false, true},
		{`{"fss":[]}`, false, true},
		{`{"fs":[{"lexical_path":"src","red":true}]}`, false, true},
		{`{"net":[{"allow":true}]}`, false, true},
		{`{"env":[{"name":"A*B"}]}`, false, true},
		{`{"fs":[{"lexical_path":"../x"}]}`, false, true},
		{`{"fs":[{"lexical_path":"/abs"}]}`, false, true},
		{`{"fs":[null]}`, false, true},
		{`{} {}`, false, true},
		{``, false, true},
		{`[]`, false, true},
	} {
		p, err := ParseAccess([]byte(tc.in))
		if (err != nil) != tc.wantErr || (err == nil && (p == nil) != tc.nilP) {
			t.Errorf("ParseAccess(%s) = %v, %v", tc.in, p, err)
		}
	}
	_, err := ParseAccess([]byte(`{"env":[{"name":"A*B"}]}`))
	var pe *PolicyError
	if !errors.As(err, &pe) || pe.Section != "env" {
		t.Errorf("want *PolicyError for env, got %v", err)
	}
}

func TestAccessPolicyJSONNoNullLists(t *testing.T) {
	b, err := json.Marshal(AccessPolicy{})
	if err != nil || string(b) != `{"fs":[],"net":[],"env":[]}` {
		t.Errorf("AccessPolicy{} = %s, %v", b, err)
	}
	b, err = json.Marshal(&AccessPolicy{Commands: map[string]CommandRule{"ls": {}}})
	if err != nil || string(b) != `{"fs":[],"net":[],"env":[],"commands":{"ls":{"args":null,"envs":null}}}` {
		t.Errorf("pointer form = %s, %v", b, err)
	}
	var p *AccessPolicy
	if b, _ := json.Marshal(p); string(b) != "null" {
		t.Errorf("nil policy = %s", b)
	}
}
