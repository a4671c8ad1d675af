package grantdiff

import (
	"fmt"
	"testing"

	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// BenchmarkCompare: the diff exec runs on its stale path, for an artifact
// the size of JP's own workspace (100 tools), every tool's rules edited,
// against the floor of comparing identical artifacts (which skips every
// clause).
func BenchmarkCompare(b *testing.B) {
	mk := func(extra bool) *artifact.Policy {
		tools := map[string]*artifact.Tool{}
		for i := range 100 {
			a := base()
			a.Commands = map[string]policy.CommandRule{"cargo": {Args: [][]string{{"check", "**"}}}}
			if extra {
				a.FS = append(a.FS, ro(fmt.Sprintf("docs/%d", i)))
				a.Net = append(a.Net, policy.NetRule{Host: "api.example.com", PathPrefix: new("/admin")})
				a.Env = append(a.Env, policy.EnvRule{Name: "CI"})
			}
			tools[fmt.Sprintf("tool_%03d", i)] = tool(a)
		}
		return art(tools)
	}
	old, new := mk(false), mk(true)
	b.Run("identical", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := Compare(old, old); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("every-tool-edited", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := Compare(old, new); err != nil {
				b.Fatal(err)
			}
		}
	})
}
