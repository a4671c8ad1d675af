package main

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeLearnRunByScript: every command of the README's "Write a
// policy in two minutes" is a step of learn_walkthrough.txtar, which runs
// them with positive controls (the script may add flags at the end: a
// compile without a terminal needs --no-input --accept-widening).
func TestReadmeLearnRunByScript(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("../../testdata/scripts/learn_walkthrough.txtar")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start, end := strings.Index(text, "<!-- test:learn -->"), strings.Index(text, "<!-- /test:learn -->")
	if start < 0 || end < start {
		t.Fatal("README has no <!-- test:learn --> block")
	}
	n := 0
	for line := range strings.SplitSeq(text[start:end], "\n") {
		cmd, ok := strings.CutPrefix(line, "$ ")
		if !ok {
			continue
		}
		cmd, _, _ = strings.Cut(cmd, "#")
		cmd = strings.ReplaceAll(strings.TrimSpace(cmd), "python3 ", "$PYTHON ")
		n++
		if !strings.Contains(string(script), "\nexec "+cmd) {
			t.Errorf("README step %q is not run by learn_walkthrough.txtar", cmd)
		}
	}
	if n < 4 {
		t.Errorf("the README's learn block has %d commands, want the four steps", n)
	}
}

// TestReadmeIsALandingPage: the README stays a landing page (at most 300
// lines); reference goes to docs/.
func TestReadmeIsALandingPage(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(readme), "\n"); n > 300 {
		t.Errorf("README.md has %d lines, want at most 300: move reference material to docs/", n)
	}
}
