package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestRecipesDocRun: every `$ jp-policy mount` line of docs/recipes.md is
// run, as written, by recipes_toolchains.txtar.
func TestRecipesDocRun(t *testing.T) {
	doc, err := os.ReadFile("../../docs/recipes.md")
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("../../testdata/scripts/recipes_toolchains.txtar")
	if err != nil {
		t.Fatal(err)
	}
	lines := regexp.MustCompile(`(?m)^\$ (jp-policy mount .*)$`).FindAllStringSubmatch(string(doc), -1)
	if len(lines) < 8 {
		t.Fatalf("docs/recipes.md has %d mount lines; the Go, npm, pip and cargo recipes have 8", len(lines))
	}
	for _, l := range lines {
		if !strings.Contains(string(script), "\nexec "+l[1]+"\n") {
			t.Errorf("recipes_toolchains.txtar does not run %q", l[1])
		}
	}
}
