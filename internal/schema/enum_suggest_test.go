package schema

import (
	"testing"

	"github.com/jp-policy/jp-policy/internal/tomlpos"
)

// TestEnumDidYouMean: a misspelt enum value gets the value that was
// meant; one too far from any gets no guess (the message lists them).
func TestEnumDidYouMean(t *testing.T) {
	for _, tc := range []struct{ src, help string }{
		{"[conversation.tools.t.access.fs]\nstrategy = \"replce\"\nvalue = []\n", `did you mean "replace"?`},
		{"[conversation.tools.t.access.fs]\nstrategy = \"prepnd\"\nvalue = []\n", `did you mean "prepend"?`},
		{"[conversation.tools.t.access.fs]\nstrategy = \"zzzzzz\"\nvalue = []\n", ""},
		{"[[conversation.tools.t.access.config]]\npath = \"a\"\napply = \"unatended\"\n", `did you mean "unattended"?`},
	} {
		root, err := tomlpos.ParseTOML("f.toml", []byte("[conversation.tools.t]\nsource = \"local\"\n"+tc.src))
		if err != nil {
			t.Fatal(err)
		}
		ds := Validate(root)
		if len(ds) != 1 || ds[0].Help != tc.help {
			t.Errorf("%q: got %v (help %q), want help %q", tc.src, ds, func() string {
				if len(ds) > 0 {
					return ds[0].Help
				}
				return ""
			}(), tc.help)
		}
	}
}
