package configdelta

import (
	"strings"
	"testing"
)

// Every field of the model is reachable, with the kind its spec names.
func TestShapeModel(t *testing.T) {
	for path, spec := range appConfigFields {
		sh, open := lookup(strings.Split(path, "."))
		if sh == nil {
			t.Errorf("%s: not reachable", path)
			continue
		}
		want := parseSpec(spec).kind
		if sh.kind != want && !(open && want == kOpen) {
			t.Errorf("%s: kind %d, want %d", path, sh.kind, want)
		}
	}
	// notMapParent: maps take a '*', modelled structs refuse it, and
	// parts jp-policy does not model get the benefit of the doubt.
	for path, refused := range map[string]bool{
		"conversation.tools":           false,
		"providers.llm.aliases":        false,
		"template.values":              false,
		"assistant":                    true,
		"assistant.model":              true,
		"conversation.tools.x.options": false,
	} {
		if got := notMapParent(strings.Split(path, ".")); got != refused {
			t.Errorf("notMapParent(%s) = %v, want %v", path, got, refused)
		}
	}
}
