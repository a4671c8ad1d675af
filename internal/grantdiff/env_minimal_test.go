package grantdiff

import (
	"testing"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// minimalRules is the env clause compile writes for a tool without env
// rules: the minimal set.
func minimalRules() []policy.EnvRule {
	var out []policy.EnvRule
	for _, n := range policy.MinimalEnv {
		out = append(out, policy.EnvRule{Name: n, Read: true})
	}
	return out
}

// TestEnvMinimalFloor: exec passes the minimal set whatever the rules
// grant, so removing an env rule narrows (it does not newly grant HOME,
// PATH, LANG), and adding one widens by exactly that variable.
func TestEnvMinimalFloor(t *testing.T) {
	withRule := []policy.EnvRule{{Name: "GOPROXY", Read: true}}
	add, err := diffEnv(minimalRules(), withRule)
	if err != nil || add == nil {
		t.Fatalf("adding a rule: %v, %v", add, err)
	}
	if !add.Widened || add.Narrowed || len(add.Gained) != 1 || len(add.Gained[0].On) != 1 || add.Gained[0].On[0] != "GOPROXY" || len(add.Lost) != 0 {
		t.Errorf("adding GOPROXY: %+v; want widened by GOPROXY alone", add)
	}
	rm, err := diffEnv(withRule, minimalRules())
	if err != nil || rm == nil {
		t.Fatalf("removing a rule: %v, %v", rm, err)
	}
	if rm.Widened || !rm.Narrowed || len(rm.Gained) != 0 || len(rm.Lost) != 1 || rm.Lost[0].On[0] != "GOPROXY" {
		t.Errorf("removing GOPROXY: %+v; want narrowed by GOPROXY alone", rm)
	}
	// A rule that denies a minimal variable does narrow.
	deny, _ := diffEnv(minimalRules(), []policy.EnvRule{{Name: "HOME", Read: false}})
	if deny == nil || deny.Widened || len(deny.Lost) != 1 || deny.Lost[0].On[0] != "HOME" {
		t.Errorf("denying HOME: %+v", deny)
	}
}
