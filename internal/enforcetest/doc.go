// Package enforcetest owns the one rule for tests that prove the sandbox
// enforces something and need a kernel feature to do it (Landlock at the
// ABI exec requires, unprivileged user namespaces, the x/sys system-call
// tables): without the feature such a test skips, so `go test ./...`
// passes on any machine; with JP_POLICY_REQUIRE_ENFORCEMENT=1 (set by
// .ci/run) the same skip is a failure, so CI can never pass green without
// enforcing. Go tests call Skip; testscript conditions call Missing.
// docs/testing.md lists what CI's kernel needs.
package enforcetest
