package sbpl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/emit"
	"github.com/jp-policy/jp-policy/internal/emit/internal/emittest"
	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/policy"
)

func TestGolden(t *testing.T) {
	for _, sc := range emittest.Scenarios(t) {
		t.Run(sc.Name, func(t *testing.T) {
			prof, clauses, err := Build(sc.Tool)
			if err != nil {
				t.Fatal(err)
			}
			emittest.Golden(t, sc.Name+".sb", sc.Root, dropTempAncestors(prof, sc.Root))
			cj, err := json.MarshalIndent(clauses, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			emittest.Golden(t, sc.Name+".clauses.json", sc.Root, append(cj, '\n'))
		})
	}
}

// Every profile must parse as balanced S-expressions whose top-level forms
// are (version 1), (deny default) and allow/deny rules, and every rule
// path must come back byte for byte.
func TestProfilesParse(t *testing.T) {
	for _, sc := range emittest.Scenarios(t) {
		t.Run(sc.Name, func(t *testing.T) {
			prof, _, err := Build(sc.Tool)
			if err != nil {
				t.Fatal(err)
			}
			forms, err := readAll(prof)
			if err != nil {
				t.Fatalf("profile does not parse: %v\n%s", err, prof)
			}
			if len(forms) < 2 || head(forms[0]) != "version" || head(forms[1]) != "deny" || forms[1].list[1].atom != "default" {
				t.Fatalf("profile must start with (version 1) (deny default)")
			}
			var lits []string
			for _, f := range forms[2:] {
				if h := head(f); h != "allow" && h != "deny" {
					t.Errorf("unexpected top-level form %q", h)
				}
				lits = append(lits, f.strings()...)
			}
			for _, g := range sc.Tool.Grants {
				if !slices.Contains(lits, g.Abs) {
					t.Errorf("path %q is not in the profile as a string", g.Abs)
				}
			}
		})
	}
}

// dropTempAncestors removes the temporary directory's own ancestors from
// the metadata allowance: they depend on TMPDIR, not on the emitter.
func dropTempAncestors(prof []byte, root string) []byte {
	s := string(prof)
	for d := filepath.Dir(root); ; d = filepath.Dir(d) {
		s = strings.ReplaceAll(s, " (literal "+Quote(d)+")", "")
		if d == filepath.Dir(d) {
			break
		}
	}
	return []byte(s)
}

func TestAncestors(t *testing.T) {
	rules := []emit.AbsRule{{Abs: "/ws/src/x"}, {Abs: "/ext/t", Link: "/ws/fork"}}
	got := ancestors("/ws", rules)
	want := []string{"/", "/ext", "/ws", "/ws/src"}
	if !slices.Equal(got, want) {
		t.Errorf("ancestors = %v, want %v", got, want)
	}
}

func head(n node) string {
	if !n.isList || len(n.list) == 0 {
		return ""
	}
	return n.list[0].atom
}

func TestQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{`/a/b`, `"/a/b"`},
		{`/a "b"`, `"/a \"b\""`},
		{`C:\x`, `"C:\\x"`},
		{"/ünï/日本", `"/ünï/日本"`},
		{"/a\nb\x7f", `"/a\x0ab\x7f"`},
		{"/bad\xff", `"/bad\xff"`},
		{"); (allow default", `"); (allow default"`},
	}
	for _, tt := range tests {
		if got := Quote(tt.in); got != tt.want {
			t.Errorf("Quote(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// FuzzQuote: whatever the path, the quoted literal reads back as exactly
// one string with the same bytes, so a path can never end the string
// early and inject rules.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"/ws", `a"b`, `\`, "\x00", "ü", "\xff\xfe", `")(allow default)("`, ";\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := Quote(s)
		forms, err := readAll([]byte("(allow file-read* (subpath " + q + "))"))
		if err != nil {
			t.Fatalf("Quote(%q) = %s does not parse: %v", s, q, err)
		}
		if len(forms) != 1 {
			t.Fatalf("Quote(%q) produced %d forms", s, len(forms))
		}
		got := forms[0].strings()
		if len(got) != 1 || got[0] != s {
			t.Fatalf("Quote(%q) read back as %q", s, got)
		}
		if strings.ContainsAny(q, "\n\r") {
			t.Fatalf("Quote(%q) contains a raw line break", s)
		}
	})
}

// BenchmarkBuild renders a profile for 41 rules (a read-write workspace
// with 40 narrowed .env files).
func BenchmarkBuild(b *testing.B) {
	tool := emit.Tool{Name: "bench", Root: "/ws"}
	yes := true
	tool.Access.FS = append(tool.Access.FS, policy.FsRule{Read: &yes, Write: &yes})
	tool.Grants = append(tool.Grants, plan.Grant{Index: 0, Abs: "/ws", Kind: plan.KindDir})
	for d := range 40 {
		lex := fmt.Sprintf("d%02d/.env", d)
		tool.Access.FS = append(tool.Access.FS, policy.FsRule{LexicalPath: lex})
		tool.Grants = append(tool.Grants, plan.Grant{Index: d + 1, Abs: "/ws/" + lex, Kind: plan.KindFile})
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := Build(tool); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzBuild: whatever the rule paths, capabilities, tool name, developer
// directory and home, Build does not panic, the profile parses with the
// reader sandbox-exec's TinyScheme would use (the oracle for the
// emitter's escaping: the developer directory and git's config paths come
// back byte for byte, and no name ends a comment or a string early), and
// it allows on each rule path (and beneath it) exactly what the policy
// does.
func FuzzBuild(f *testing.F) {
	f.Add("src", ".env", uint8(0x1f), uint8(0), true, "t", "/Library/Developer/CommandLineTools", "/Users/u")
	f.Add(`a "q"`, `a "q"/\x`, uint8(1), uint8(3), false, "fuzz\n)(", `/A "b"\`, "/h\n(allow default)")
	f.Add("ü/日本", "ü", uint8(7), uint8(16), true, "\xff;", "/\x00", "")
	f.Fuzz(func(t *testing.T, p1, p2 string, c1, c2 uint8, file bool, name, dev, home string) {
		if !strings.HasPrefix(dev, "/") || !strings.HasPrefix(home, "/") || strings.ContainsRune(dev+home, 0) {
			dev, home = "", "" // the compiler passes absolute paths or nothing
		}
		tool := emit.Tool{Name: name, Root: "/ws", DeveloperDir: dev, Home: home}
		for i, lex := range []string{"", p1, p2} {
			c := c1
			if i == 2 {
				c = c2
			}
			abs := filepath.Join("/ws", lex)
			if !policy.Within(abs, "/ws") || strings.ContainsRune(abs, 0) {
				return // not a workspace path; AbsRules rejects it (tested elsewhere)
			}
			r := policy.FsRule{LexicalPath: strings.TrimPrefix(strings.TrimPrefix(abs, "/ws"), "/")}
			for k, pp := range []**bool{&r.Read, &r.Create, &r.Update, &r.Delete, &r.Execute} {
				v := c&(1<<k) != 0
				*pp = &v
			}
			kind := plan.KindDir
			if file && i == 2 {
				kind = plan.KindFile
			}
			tool.Access.FS = append(tool.Access.FS, r)
			tool.Grants = append(tool.Grants, plan.Grant{Index: i, Abs: abs, Kind: kind})
		}
		prof, _, err := Build(tool)
		if err != nil {
			t.Fatalf("valid tool rejected: %v", err)
		}
		forms, err := readAll(prof)
		if err != nil {
			t.Fatalf("profile does not parse: %v\n%s", err, prof)
		}
		if len(forms) < 2 || head(forms[0]) != "version" || head(forms[1]) != "deny" {
			t.Fatalf("a name leaked out of its comment or string:\n%s", prof)
		}
		var lits []string
		for _, f := range forms {
			if h := head(f); h != "allow" && h != "deny" && h != "version" {
				t.Fatalf("unexpected top-level form %q:\n%s", h, prof)
			}
			lits = append(lits, f.strings()...)
		}
		want := []string{DefaultDeveloperDir}
		if dev != "" {
			want = []string{dev, path.Join(home, ".gitconfig")}
		}
		for _, w := range want {
			if !slices.Contains(lits, w) {
				t.Fatalf("%q does not come back as a string:\n%s", w, prof)
			}
		}
		var queries []string
		for _, r := range tool.Access.FS {
			queries = append(queries, r.LexicalPath, path.Join(r.LexicalPath, "x"))
		}
		checkAgainstPolicy(t, tool, forms, prof, queries)
	})
}

// SBPL lets a later rule win: TIOCSTI must be denied, by number, after
// the last rule that allows file-ioctl; Unix sockets are denied after
// every network allow, and the one Unix socket allowed (the log's) comes
// after that denial and after the net section's (deny network*).
func TestLateRulesOrder(t *testing.T) {
	for name, prof := range everyProfile(t) {
		s := string(prof)
		deny := strings.Index(s, "(deny file-ioctl (ioctl-command 2147578994))")
		if deny < 0 || strings.LastIndex(s, "(allow file-ioctl") > deny {
			t.Errorf("%s: TIOCSTI is not denied after every file-ioctl allow", name)
		}
		if strings.Contains(s, "(ioctl-command TIOCSTI") {
			t.Errorf("%s: an ioctl named by symbol, which macOS 14 does not bind", name)
		}
		unix := strings.Index(s, "(deny network-outbound (remote unix-socket))")
		if unix < 0 || strings.LastIndex(s, "(deny network*)") > unix {
			t.Errorf("%s: the Unix socket denial does not follow the net section", name)
		}
		if r := strings.Index(s, `(allow network-outbound (literal "/private/var/run/syslog"))`); r < unix {
			t.Errorf("%s: the log socket is allowed before the denial, which would then win", name)
		}
		if strings.Contains(s, "mDNSResponder") {
			t.Errorf("%s: the resolver's socket is reachable; the proxy resolves names", name)
		}
	}
}

// TestNarrowedPathNotCreatable: each subpath exclusion of a narrower rule
// comes with a literal one (Codex's pairing), so the narrowed path is
// excluded even while it does not exist.
func TestNarrowedPathNotCreatable(t *testing.T) {
	for name, prof := range everyProfile(t) {
		s := string(prof)
		for rest := s; ; {
			i := strings.Index(rest, "(require-not (subpath ")
			if i < 0 {
				break
			}
			end := strings.Index(rest[i:], "))")
			q := rest[i+len("(require-not (subpath ") : i+end]
			if !strings.Contains(s, "(require-not (literal "+q+")) (require-not (subpath "+q+"))") {
				t.Errorf("%s: exclusion of %s has no literal beside it", name, q)
			}
			rest = rest[i+end:]
		}
	}
}

// TestNetProxyRule: a tool with net rules reaches only the proxy port
// given at exec time, on localhost; none reaches anything else by TCP.
func TestNetProxyRule(t *testing.T) {
	port := uint16(443)
	tool := emit.Tool{Name: "n", Root: "/ws", Access: policy.AccessPolicy{Net: []policy.NetRule{{Host: "example.com", Port: &port, Allow: true}}}}
	prof, clauses, err := Build(tool)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for line := range strings.Lines(string(prof)) {
		if strings.HasPrefix(line, "(allow network") {
			got = append(got, strings.TrimSpace(line))
		}
	}
	want := []string{
		`(allow network-outbound (remote tcp (string-append "localhost:" (param "JP_PROXY_PORT"))))`,
		`(allow network-outbound (literal "/private/var/run/syslog"))`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("network allows:\n got %q\nwant %q", got, want)
	}
	if !strings.Contains(clauses[slices.IndexFunc(clauses, func(c plan.Clause) bool { return c.ID == "net" })].How, "::ffff:127.0.0.1") {
		t.Errorf("the net clause does not say the IPv4-mapped loopback is refused")
	}
}

// TestDenyOnlyNetIsNoNetwork: net rules none of which allows compile to
// the profile of a tool without network, byte for byte (lint's JP126
// warns when a rule of such a list leaves allow out).
func TestDenyOnlyNetIsNoNetwork(t *testing.T) {
	port := uint16(443)
	none := emit.Tool{Name: "t", Root: "/ws"}
	deny := none
	deny.Access.Net = []policy.NetRule{{Host: "example.com", Port: &port}, {Host: "api.github.com"}}
	a, _, err := Build(none)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := Build(deny)
	if err != nil {
		t.Fatal(err)
	}
	if string(a) != string(b) {
		t.Errorf("deny-only net rules change the profile")
	}
}

// TestBuildStartsWithBase: every profile starts with the shared base of
// its developer directory (stored once in the artifact, BaseFile), whose
// clauses start its clause list; nothing after the base depends on it, so
// base + the rest is the profile exec runs.
func TestBuildStartsWithBase(t *testing.T) {
	for _, sc := range emittest.Scenarios(t) {
		base := NewBase(DefaultDeveloperDir)
		prof, cl, err := Build(sc.Tool)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(prof, base.Text) || len(prof) == len(base.Text) {
			t.Errorf("%s: the profile does not start with the shared base", sc.Name)
		}
		bc := base.Clauses()
		if len(cl) <= len(bc) || !slices.Equal(cl[:len(bc)], bc) {
			t.Errorf("%s: the clauses do not start with the base's", sc.Name)
		}
		if _, _, err := BuildWith(sc.Tool, NewBase("/elsewhere")); err == nil {
			t.Errorf("%s: a base of another developer directory was accepted", sc.Name)
		}
	}
}
