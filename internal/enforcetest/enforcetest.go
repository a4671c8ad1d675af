package enforcetest

import (
	"fmt"
	"os"
	"testing"
)

// EnvVar turns enforcement skips into failures when set to "1".
const EnvVar = "JP_POLICY_REQUIRE_ENFORCEMENT"

// Required reports whether enforcement tests must run.
func Required() bool { return os.Getenv(EnvVar) == "1" }

// Missing is the rule: a test that cannot enforce because of what
// (a one-line reason) may skip, unless enforcement is required, when
// Missing returns the error to fail with. nil means skip.
func Missing(what string) error {
	if !Required() {
		return nil
	}
	return fmt.Errorf("%s, and %s=1 requires every enforcement test to run (docs/testing.md lists what the kernel needs)", what, EnvVar)
}

// Skip skips t because of what, or fails it when enforcement is
// required.
func Skip(t testing.TB, what string) {
	t.Helper()
	if err := Missing(what); err != nil {
		t.Fatal(err)
	}
	t.Skip(what)
}

// Skipf is Skip with a format.
func Skipf(t testing.TB, format string, args ...any) {
	t.Helper()
	Skip(t, fmt.Sprintf(format, args...))
}
