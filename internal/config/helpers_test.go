package config

import (
	"os"
	"path/filepath"
	"testing"
)

func write(t testing.TB, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
