package configdelta

import (
	"strings"
	"testing"
)

// Every field of the model is reachable, with the kind its spec names.
func TestShapeModel(t *testing.T) {
	for path, spec := range appConfigFields() {
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
}
