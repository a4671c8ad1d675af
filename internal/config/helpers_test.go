package config

import (
	"testing"

	"github.com/jp-policy/jp-policy/internal/testfixture"
)

func write(t testing.TB, p, s string) { testfixture.WriteFile(t, p, s) }

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
