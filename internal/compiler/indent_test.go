package compiler

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzAppendIndent: for any valid JSON in encoding/json's compact form,
// appendIndent writes exactly what json.Indent writes.
func FuzzAppendIndent(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `{"a":[],"b":{}}`, `[1,2,{"x":"y\"z\\"}]`, `"s"`, `null`,
		`{"k":"a,b:{c}[d]","e":[true,false,null,-1.5e3]}` + "\n",
		`{"u":"\u2028<&>","n":{"m":[[],[{}]]}}`,
	} {
		f.Add([]byte(s), "    ")
	}
	f.Fuzz(func(t *testing.T, data []byte, prefix string) {
		var compact bytes.Buffer
		if err := json.Compact(&compact, data); err != nil {
			return
		}
		src := compact.Bytes()
		if bytes.HasSuffix(data, []byte("\n")) {
			src = append(src, '\n') // as an Encoder writes it
		}
		var want bytes.Buffer
		if err := json.Indent(&want, src, prefix, "  "); err != nil {
			t.Fatal(err)
		}
		if got := appendIndent(nil, src, prefix, "  "); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("appendIndent(%q)\n got %q\nwant %q", src, got, want.Bytes())
		}
	})
}
