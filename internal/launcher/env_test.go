package launcher

import (
	"slices"
	"testing"

	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/policy"
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
		env  plan.Env
		cmd  *policy.CommandRule
		want []string
	}{
		{
			name: "minimal only",
			env:  plan.Env{Minimal: minimal},
			want: []string{"PATH=/usr/bin", "HOME=/root", "USER=me", "LANG=C.UTF-8", "LC_ALL=C"},
		},
		{
			name: "rules: longest literal wins, exact beats prefix at equal length",
			env:  plan.Env{Minimal: minimal, Rules: rules},
			want: []string{"PATH=/usr/bin", "HOME=/root", "USER=me", "LANG=C.UTF-8", "LC_ALL=C",
				"GITHUB_TOKEN=t", "AWS_REGION=eu", "AWS_TOKEN=a", "EMPTY="},
		},
		{
			name: "an explicit deny removes a minimal variable",
			env:  plan.Env{Minimal: minimal, Rules: []policy.EnvRule{{Name: "HOME", Read: false}, {Name: "LC_*", Read: false}}},
			want: []string{"PATH=/usr/bin", "USER=me", "LANG=C.UTF-8"},
		},
		{
			name: "command envs narrow the granted variables, not the minimal set",
			env:  plan.Env{Minimal: minimal, Rules: rules},
			cmd:  &policy.CommandRule{Envs: []string{"AWS_*"}},
			want: []string{"PATH=/usr/bin", "HOME=/root", "USER=me", "LANG=C.UTF-8", "LC_ALL=C",
				"AWS_REGION=eu", "AWS_TOKEN=a"},
		},
		{
			name: "empty command envs forward no granted variable",
			env:  plan.Env{Minimal: minimal, Rules: rules},
			cmd:  &policy.CommandRule{Envs: []string{}},
			want: []string{"PATH=/usr/bin", "HOME=/root", "USER=me", "LANG=C.UTF-8", "LC_ALL=C"},
		},
		{
			name: "nil command envs do not narrow",
			env:  plan.Env{Minimal: []string{"PATH"}, Rules: []policy.EnvRule{{Name: "SECRET", Read: true}}},
			cmd:  &policy.CommandRule{},
			want: []string{"PATH=/usr/bin", "SECRET=x"},
		},
		{
			name: "nothing allowed",
			env:  plan.Env{},
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
