//go:build linux

package nsroot

import "testing"

func TestSmoke(t *testing.T) {
	requireUserns(t)
	s := baseSpec(t)
	t.Log(helperOut(t, s, "id"))
	t.Log(helperOut(t, s, "caps"))
	t.Log(helperOut(t, s, "stat", "/dev/null"))
	t.Log(helperOut(t, s, "stat", "/etc"))
}
