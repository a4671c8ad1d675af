package testfixture

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// UpstreamSkipReason is the one line a test (or testscript) gives when JP's
// upstream fixture is absent.
const UpstreamSkipReason = "JP's own workspace config (../shared/fixtures/jp-upstream) is absent, as on a fresh clone; testdata/fixtures/jp-layout covers the same loader features"

// Root is the repository root, found from this file's location so tests
// in any package (any working directory) agree on it.
func Root() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("testfixture: no caller information")
	}
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Own is the project's own JP workspace fixture.
func Own() string {
	return filepath.Join(Root(), "testdata", "fixtures", "jp-layout")
}

// UpstreamPath is where JP's upstream fixture is expected, whether or not it
// is there.
func UpstreamPath() string {
	return filepath.Join(Root(), "..", "shared", "fixtures", "jp-upstream")
}

// HaveUpstream reports whether JP's upstream fixture is present (its .jp
// directory, not merely an empty shell).
func HaveUpstream() bool {
	fi, err := os.Stat(filepath.Join(UpstreamPath(), ".jp"))
	return err == nil && fi.IsDir()
}

// Upstream returns JP's upstream fixture, or skips tb with
// UpstreamSkipReason when it is absent.
func Upstream(tb testing.TB) string {
	tb.Helper()
	if !HaveUpstream() {
		tb.Skip(UpstreamSkipReason)
	}
	return UpstreamPath()
}

// WriteFile writes s to p, creating p's directories, and fails tb on any
// error: the one helper the tests that build a workspace in a temp
// directory share.
func WriteFile(tb testing.TB, p, s string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		tb.Fatal(err)
	}
}
