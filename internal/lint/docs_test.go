package lint

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const (
	beginRules = "<!-- BEGIN RULES (generated: UPDATE_DOCS=1 go test ./internal/lint -run TestDocs) -->\n"
	endRules   = "<!-- END RULES -->"
)

var updateDocs = os.Getenv("UPDATE_DOCS") != ""

// TestDocs keeps docs/rules.md true: the catalogue section is exactly
// what the code says (set UPDATE_DOCS=1 to regenerate it), every rule ID
// the page mentions exists, and the map-path table matches JP109's.
func TestDocs(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "rules.md")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	i := strings.Index(doc, beginRules)
	j := strings.Index(doc, endRules)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the rule catalogue markers", path)
	}
	gen := Markdown()
	if got := doc[i+len(beginRules) : j]; got != gen {
		if updateDocs {
			doc = doc[:i+len(beginRules)] + gen + doc[j:]
			if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
		} else {
			t.Errorf("%s is out of date with the catalogue; run UPDATE_DOCS=1 go test ./internal/lint -run TestDocs", path)
		}
	}
	for _, m := range regexp.MustCompile(`\bJP\d{3}\b`).FindAllString(doc, -1) {
		if _, ok := Lookup(m); !ok {
			t.Errorf("%s mentions %s, which is not a rule", path, m)
		}
	}
	for _, r := range Rules() {
		if !strings.Contains(doc, "### "+r.ID+"\n") {
			t.Errorf("%s does not document %s", path, r.ID)
		}
	}
	for _, m := range configMapPaths {
		if !strings.Contains(doc, "| `"+m+"` |") {
			t.Errorf("%s: map-path table lacks `%s`", path, m)
		}
	}
	rows := regexp.MustCompile("(?m)^\\| `([a-z.*_]+)` \\| map").FindAllStringSubmatch(doc, -1)
	if len(rows) != len(configMapPaths) {
		t.Errorf("%s: map-path table has %d rows, the code %d", path, len(rows), len(configMapPaths))
	}
}
