package grantdiff

import (
	"maps"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/policy"
)

//go:fix inline
func u16(n uint16) *uint16 { return new(n) }
func rw(p string) policy.FsRule {
	return policy.FsRule{LexicalPath: p, Read: new(true), Write: new(true)}
}
func ro(p string) policy.FsRule { return policy.FsRule{LexicalPath: p, Read: new(true)} }

func art(tools map[string]*artifact.Tool) *artifact.Policy {
	return &artifact.Policy{Format: artifact.FormatVersion, Root: "/ws", Tools: tools}
}

func tool(a policy.AccessPolicy) *artifact.Tool {
	return &artifact.Tool{Source: "local", Enabled: true, Access: a}
}

func one(a policy.AccessPolicy) *artifact.Policy {
	return art(map[string]*artifact.Tool{"t": tool(a)})
}

func base() policy.AccessPolicy {
	return policy.AccessPolicy{
		FS:  []policy.FsRule{ro(""), rw("src")},
		Net: []policy.NetRule{{Host: "api.example.com", Scheme: new("https"), Allow: true}},
		Env: []policy.EnvRule{{Name: "HOME", Read: true}, {Name: "AWS_*", Read: true}, {Name: "AWS_SECRET", Read: false}},
		Commands: map[string]policy.CommandRule{
			"cargo": {Args: [][]string{{"check", "**"}}},
		},
		Config: []policy.ConfigRule{{Path: "conversation", Read: true}, {Path: "assistant", Write: policy.ConfigWriteAllow}},
	}
}

func TestCompare(t *testing.T) {
	type want struct {
		clause            string
		widened, narrowed bool
		contains          string // in the text rendering
	}
	tests := []struct {
		name string
		edit func(p *policy.AccessPolicy)
		want []want
	}{
		{"fs src to root", func(p *policy.AccessPolicy) { p.FS = []policy.FsRule{rw("")} },
			[]want{{ClauseFS, true, false, "now also write on `.` (including .jp/, .jp.toml, .git/hooks/, .git/config)"}}},
		{"fs narrowed", func(p *policy.AccessPolicy) { p.FS = []policy.FsRule{ro(""), ro("src")} },
			[]want{{ClauseFS, false, true, "no longer write on `src`"}}},
		{"fs deny inside", func(p *policy.AccessPolicy) {
			p.FS = append(p.FS, policy.FsRule{LexicalPath: "src/secret"})
		}, []want{{ClauseFS, false, true, "no longer read, write on `src/secret`"}}},
		{"fs same decisions written differently", func(p *policy.AccessPolicy) {
			p.FS = []policy.FsRule{ro(""), {LexicalPath: "src", Read: new(true), Create: new(true), Update: new(true), Delete: new(true)}}
		}, nil},
		{"fs unrestricted", func(p *policy.AccessPolicy) { p.FS = nil },
			[]want{{ClauseFS, true, false, "now also write, execute on `.`"}}},
		{"fs execute", func(p *policy.AccessPolicy) {
			p.FS = append(p.FS, policy.FsRule{LexicalPath: "bin", Read: new(true), Execute: new(true)})
		}, []want{{ClauseFS, true, false, "now also execute on `bin`"}}},
		{"fs external added", func(p *policy.AccessPolicy) {
			p.FS = append(p.FS, policy.FsRule{LexicalPath: "fork", External: true, ApprovedTarget: new("/elsewhere/fork"), Read: new(true)})
		}, []want{{ClauseFS, true, false, "now also read on `fork`"}}},
		{"net host added", func(p *policy.AccessPolicy) {
			p.Net = append(p.Net, policy.NetRule{Host: "evil.example", Port: u16(4444), Allow: true})
		}, []want{{ClauseNet, true, false, "evil.example:4444"}}},
		{"net port widened", func(p *policy.AccessPolicy) { p.Net[0].Scheme = nil },
			[]want{{ClauseNet, true, false, "`http://api.example.com/`"}}},
		{"net deny added", func(p *policy.AccessPolicy) {
			p.Net = append(p.Net, policy.NetRule{Host: "api.example.com", PathPrefix: new("/admin")})
		}, []want{{ClauseNet, false, true, "no longer connect to `https://api.example.com/admin`\n"}}},
		{"net unrestricted", func(p *policy.AccessPolicy) { p.Net = nil },
			[]want{{ClauseNet, true, false, "any other host"}}},
		{"env variable", func(p *policy.AccessPolicy) { p.Env = append(p.Env, policy.EnvRule{Name: "GITHUB_TOKEN", Read: true}) },
			[]want{{ClauseEnv, true, false, "now also read on `GITHUB_TOKEN`"}}},
		{"env deny removed", func(p *policy.AccessPolicy) { p.Env = p.Env[:2] },
			[]want{{ClauseEnv, true, false, "`AWS_SECRET`"}}},
		{"env prefix narrowed", func(p *policy.AccessPolicy) { p.Env[1].Name = "AWS_REGION" },
			[]want{{ClauseEnv, false, true, "`AWS_*`"}}},
		{"commands any program", func(p *policy.AccessPolicy) { p.Commands = nil },
			[]want{{ClauseCommands, true, false, "now also run any program"}}},
		{"commands program added", func(p *policy.AccessPolicy) {
			p.Commands["curl"] = policy.CommandRule{}
		}, []want{{ClauseCommands, true, false, "run curl with `any arguments`"}}},
		{"commands args widened", func(p *policy.AccessPolicy) {
			p.Commands["cargo"] = policy.CommandRule{Args: [][]string{{"check", "**"}, {"build"}}}
		}, []want{{ClauseCommands, true, false, "run cargo with `[build]`"}}},
		{"commands args narrowed", func(p *policy.AccessPolicy) {
			p.Commands["cargo"] = policy.CommandRule{Args: [][]string{{"check", "--all"}}}
		}, []want{{ClauseCommands, false, true, "[check **]"}}},
		{"commands args covered", func(p *policy.AccessPolicy) {
			p.Commands["cargo"] = policy.CommandRule{Args: [][]string{{"check", "**"}, {"check", "--all", "**"}}}
		}, nil},
		{"commands envs widened", func(p *policy.AccessPolicy) {
			p.Commands["cargo"] = policy.CommandRule{Args: [][]string{{"check", "**"}}, Envs: []string{"HOME"}}
		}, []want{{ClauseCommands, false, true, "let cargo see"}}},
		{"config write", func(p *policy.AccessPolicy) {
			p.Config = append(p.Config, policy.ConfigRule{Path: "conversation.tools.*", Read: true, Write: policy.ConfigWriteInsecureAllow})
		}, []want{{ClauseConfig, true, false, "now also write on `conversation.tools.<other>`"}}},
		{"config unattended", func(p *policy.AccessPolicy) {
			p.Config[1].Apply = policy.ApplyUnattended
		}, []want{{ClauseConfig, true, false, "now also write unattended on `assistant`"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := base()
			n := base()
			n.Commands = map[string]policy.CommandRule{}
			maps.Copy(n.Commands, o.Commands)
			n.FS = append([]policy.FsRule(nil), o.FS...)
			n.Net = append([]policy.NetRule(nil), o.Net...)
			n.Env = append([]policy.EnvRule(nil), o.Env...)
			n.Config = append([]policy.ConfigRule(nil), o.Config...)
			tc.edit(&n)
			d, err := Compare(one(o), one(n))
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Changes) != len(tc.want) {
				t.Fatalf("got %d changes, want %d:\n%s", len(d.Changes), len(tc.want), d.Text())
			}
			text := d.Text()
			for i, w := range tc.want {
				c := d.Changes[i]
				if c.Clause != w.clause || c.Widened != w.widened || c.Narrowed != w.narrowed {
					t.Errorf("change %d = %s widened=%v narrowed=%v, want %s %v %v\n%s", i, c.Clause, c.Widened, c.Narrowed, w.clause, w.widened, w.narrowed, text)
				}
				if !strings.Contains(text, w.contains) {
					t.Errorf("text lacks %q:\n%s", w.contains, text)
				}
			}
			if d.Widened() != (len(tc.want) > 0 && tc.want[0].widened) {
				t.Errorf("Widened() = %v", d.Widened())
			}
		})
	}
}

func TestCompareTools(t *testing.T) {
	a := base()
	def := policy.Default()
	tests := []struct {
		name              string
		old, new          *artifact.Policy
		widened, narrowed bool
		contains          string
	}{
		{"tool added", nil, one(a), true, false, "t: tool: absent → enabled, declared `access`"},
		{"tool removed", one(a), art(nil), false, true, "t: tool: enabled, declared `access` → removed"},
		{"tool enabled", art(map[string]*artifact.Tool{"t": {Access: a}}), one(a), true, false, "now also enabled on `t`"},
		{"tool disabled", one(a), art(map[string]*artifact.Tool{"t": {Access: a}}), false, true, "no longer enabled on `t`"},
		{"defaulted", one(a), art(map[string]*artifact.Tool{"t": {Enabled: true, Defaulted: true, Access: def}}), true, true, "default policy (no `access`)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Compare(tc.old, tc.new)
			if err != nil {
				t.Fatal(err)
			}
			var w, n bool
			for _, c := range d.Changes {
				w = w || c.Widened
				n = n || c.Narrowed
			}
			if w != tc.widened || n != tc.narrowed || !strings.Contains(d.Text(), tc.contains) {
				t.Errorf("widened=%v narrowed=%v, want %v %v; text lacks %q?\n%s", w, n, tc.widened, tc.narrowed, tc.contains, d.Text())
			}
		})
	}
}

func TestCompareSame(t *testing.T) {
	d, err := Compare(one(base()), one(base()))
	if err != nil {
		t.Fatal(err)
	}
	if !d.Empty() || d.Widened() || d.Text() != "no grant changes\n" {
		t.Fatalf("diff(a, a) = %s", d.Text())
	}
}
