package launcher

import (
	"slices"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/emit"

	"github.com/jp-policy/jp-policy/policy"
)

func TestFilterEnv(t *testing.T) {
	minimal := []string{"PATH", "HOME", "USER", "LANG", "LC_*"}
	environ := []string{
		"PATH=/usr/bin", "HOME=/root", "USER=me", "LANG=C.UTF-8", "LC_ALL=C",
		"SECRET=x", "GITHUB_TOKEN=t", "GITHUB_TOKEN_LOG=l", "AWS_REGION=eu",
		"AWS_SECRET_ACCESS_KEY=k", "AWS_TOKEN=a", "noequals", "=weird", "EMPTY=",
		"PATHX=no",
	}
	rules := []policy.EnvRule{
		{Name: "GITHUB_TOKEN", Read: true},
		{Name: "AWS_*", Read: true},
		{Name: "AWS_SECRET_ACCESS_KEY", Read: false},
		{Name: "AWS_TOKEN*", Read: false},
		{Name: "AWS_TOKEN", Read: true},
		{Name: "EMPTY", Read: true},
	}
	tests := []struct {
		name string
		env  emit.Env
		cmd  *policy.CommandRule
		want []string
	}{
		{
			name: "minimal only",
			env:  emit.Env{Minimal: minimal},
			want: []string{"PATH=/usr/bin", "HOME=/root", "USER=me", "LANG=C.UTF-8", "LC_ALL=C"},
		},
		{
			name: "rules: longest literal wins, exact beats prefix at equal length",
			env:  emit.Env{Minimal: minimal, Rules: rules},
			want: []string{"PATH=/usr/bin", "HOME=/root", "USER=me", "LANG=C.UTF-8", "LC_ALL=C",
				"GITHUB_TOKEN=t", "AWS_REGION=eu", "AWS_TOKEN=a", "EMPTY="},
		},
		{
			name: "an explicit deny removes a minimal variable",
			env:  emit.Env{Minimal: minimal, Rules: []policy.EnvRule{{Name: "HOME", Read: false}, {Name: "LC_*", Read: false}}},
			want: []string{"PATH=/usr/bin", "USER=me", "LANG=C.UTF-8"},
		},
		{
			name: "command envs narrow the granted variables, not the minimal set",
			env:  emit.Env{Minimal: minimal, Rules: rules},
			cmd:  &policy.CommandRule{Envs: []string{"AWS_*"}},
			want: []string{"PATH=/usr/bin", "HOME=/root", "USER=me", "LANG=C.UTF-8", "LC_ALL=C",
				"AWS_REGION=eu", "AWS_TOKEN=a"},
		},
		{
			name: "empty command envs forward no granted variable",
			env:  emit.Env{Minimal: minimal, Rules: rules},
			cmd:  &policy.CommandRule{Envs: []string{}},
			want: []string{"PATH=/usr/bin", "HOME=/root", "USER=me", "LANG=C.UTF-8", "LC_ALL=C"},
		},
		{
			name: "nil command envs do not narrow",
			env:  emit.Env{Minimal: []string{"PATH"}, Rules: []policy.EnvRule{{Name: "SECRET", Read: true}}},
			cmd:  &policy.CommandRule{},
			want: []string{"PATH=/usr/bin", "SECRET=x"},
		},
		{
			name: "nothing allowed",
			env:  emit.Env{},
			want: []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FilterEnv(environ, tt.env, tt.cmd)
			if !slices.Equal(got, tt.want) {
				t.Errorf("FilterEnv()\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// FuzzFilterEnv checks the allowlist never widens: every variable that
// reaches the child was in the input, in order, byte for byte, and is one
// the rules or the minimal set allow.
func FuzzFilterEnv(f *testing.F) {
	f.Add("PATH=/bin\x00SECRET=x\x00AWS_KEY=k\x00LC_ALL=C", "AWS_*", true, "HOME", false)
	f.Add("A=1\x00A=2\x00=x\x00noeq", "A", false, "A*", true)
	f.Add("", "*", true, "", false)
	f.Fuzz(func(t *testing.T, environ, rule1 string, read1 bool, rule2 string, read2 bool) {
		in := strings.Split(environ, "\x00")
		env := emit.Env{
			Minimal: []string{"PATH", "HOME", "LC_*"},
			Rules:   []policy.EnvRule{{Name: rule1, Read: read1}, {Name: rule2, Read: read2}},
		}
		out := FilterEnv(in, env, nil)
		i := 0
		for _, kv := range out {
			for i < len(in) && in[i] != kv {
				i++
			}
			if i == len(in) {
				t.Fatalf("%q is not an input entry in order (in %q)", kv, in)
			}
			i++
			name, _, ok := strings.Cut(kv, "=")
			if !ok || name == "" {
				t.Fatalf("malformed entry %q passed", kv)
			}
			if !envAllowed(env, name) {
				t.Fatalf("%q passed but the allowlist denies it", name)
			}
			if rule, allowed := policy.MatchEnv(env.Rules, name); rule != nil && !allowed {
				t.Fatalf("%q passed although rule %q denies it", name, rule.Name)
			}
		}
		narrowed := FilterEnv(in, env, &policy.CommandRule{Envs: []string{}})
		for _, kv := range narrowed {
			name, _, _ := strings.Cut(kv, "=")
			if !inMinimal(env, name) {
				t.Fatalf("empty envs let granted variable %q through", name)
			}
		}
	})
}
