package launcher

import (
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// FuzzFilterEnv checks the allowlist never widens: every variable that
// reaches the child was in the input, in order, byte for byte, and is one
// the rules or the minimal set allow.
func FuzzFilterEnv(f *testing.F) {
	f.Add("PATH=/bin\x00SECRET=x\x00AWS_KEY=k\x00LC_ALL=C", "AWS_*", true, "HOME", false)
	f.Add("A=1\x00A=2\x00=x\x00noeq", "A", false, "A*", true)
	f.Add("", "*", true, "", false)
	f.Fuzz(func(t *testing.T, environ, rule1 string, read1 bool, rule2 string, read2 bool) {
		in := strings.Split(environ, "\x00")
		env := plan.Env{
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
			if !env.Allows(name) {
				t.Fatalf("%q passed but the allowlist denies it", name)
			}
			if rule, allowed := policy.MatchEnv(env.Rules, name); rule != nil && !allowed {
				t.Fatalf("%q passed although rule %q denies it", name, rule.Name)
			}
		}
		narrowed := FilterEnv(in, env, &policy.CommandRule{Envs: []string{}})
		for _, kv := range narrowed {
			name, _, _ := strings.Cut(kv, "=")
			if !env.FromMinimal(name) {
				t.Fatalf("empty envs let granted variable %q through", name)
			}
		}
	})
}
