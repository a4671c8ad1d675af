package enforcetest

import (
	"strings"
	"testing"
)

func TestMissing(t *testing.T) {
	t.Setenv(EnvVar, "")
	if err := Missing("no Landlock"); err != nil {
		t.Errorf("not required: %v, want nil (skip)", err)
	}
	t.Setenv(EnvVar, "0")
	if Required() {
		t.Error(`"0" requires enforcement`)
	}
	t.Setenv(EnvVar, "1")
	err := Missing("no Landlock")
	if err == nil || !strings.Contains(err.Error(), "no Landlock") || !strings.Contains(err.Error(), EnvVar) {
		t.Errorf("required: %v, want an error naming the reason and %s", err, EnvVar)
	}
}
