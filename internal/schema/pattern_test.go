package schema

import (
	"regexp"
	"testing"
)

// knownSources are the patterns knownPattern answers for; each must be a
// pattern of the built-in schema (TestKnownPatternsAreTheSchemas).
var knownSources = []string{
	`^[^*]*\*?$`,
	`^(true|false|on|off|always|explicit)$`,
	`^((builtin|local)(\..*)?|mcp\.[^.]+(\..*)?)$`,
}

func TestKnownPatternsAreTheSchemas(t *testing.T) {
	cs, err := compileSchema(schemaJSON)
	if err != nil {
		t.Fatal(err)
	}
	inSchema := map[string]bool{}
	for _, n := range schemaNodes(cs) {
		if n.pattern != nil {
			inSchema[n.pattern.src] = true
			if knownPattern(n.pattern.src) == nil {
				t.Errorf("schema pattern %q has no hand-written matcher; add one to knownPattern (or accept regexp's start-up cost)", n.pattern.src)
			}
		}
	}
	for _, src := range knownSources {
		if !inSchema[src] {
			t.Errorf("knownPattern answers for %q, which the schema no longer uses", src)
		}
	}
}

// FuzzKnownPatterns: each hand-written matcher agrees with regexp.
func FuzzKnownPatterns(f *testing.F) {
	for _, s := range []string{"", "*", "A*", "A**", "*A", "GITHUB_*", "A\n*", "true", "on", "yes", "True",
		"builtin", "local", "builtin.x", "local.", "builtinx", "local.a\nb", "mcp", "mcp.", "mcp.a", "mcp..a",
		"mcp.a.b", "mcp.a\nb", "mcp.a.b\n", "mcp.\n", "mcp.\n.x", "\xff", "local.\xff", "mcp.\xff.\xfe"} {
		f.Add(s)
	}
	res := make([]*regexp.Regexp, len(knownSources))
	for i, src := range knownSources {
		res[i] = regexp.MustCompile(src)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i, src := range knownSources {
			if got, want := knownPattern(src)(s), res[i].MatchString(s); got != want {
				t.Errorf("pattern %q on %q: hand-written %v, regexp %v", src, s, got, want)
			}
		}
	})
}
