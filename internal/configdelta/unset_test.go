package configdelta

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseUnsetPath(t *testing.T) {
	str := func(s string) *string { return &s }
	valid := []struct {
		in   string
		segs []string
		elem *string
	}{
		{"assistant.name", []string{"assistant", "name"}, nil},
		{"a", []string{"a"}, nil},
		{`conversation.attachments["stale-file.md"]`, []string{"conversation", "attachments"}, str("stale-file.md")},
		{`x["a\"b"]`, []string{"x"}, str(`a"b`)},
		{`x["a.b[c]"]`, []string{"x"}, str("a.b[c]")},
		{`x["\u00e9"]`, []string{"x"}, str("é")},
		{`tools.fs-read_1.enable`, []string{"tools", "fs-read_1", "enable"}, nil},
	}
	for _, tc := range valid {
		u, err := ParseUnsetPath(tc.in)
		if err != nil {
			t.Errorf("ParseUnsetPath(%q): %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(u.Segments, tc.segs) || !reflect.DeepEqual(u.Element, tc.elem) {
			t.Errorf("ParseUnsetPath(%q) = %q %v, want %q %v", tc.in, u.Segments, u.Element, tc.segs, tc.elem)
		}
	}
	invalid := map[string]string{
		"":              "empty",
		".":             "empty path segment",
		"a.":            "empty path segment",
		"a..b":          "empty path segment",
		"a b":           "may not contain",
		"a.*":           "may not contain",
		"a[":            "must end the path",
		`a["x"]b`:       "must end the path",
		"a[x]":          "JSON string",
		"a[1]":          "JSON string",
		`a[""]`:         "empty",
		`a["x"]["y"]`:   "not one JSON string",
		`a["x\q"]`:      "not one JSON string",
		"[\"x\"]":       "empty path segment",
		"a\x00b":        "may not contain",
		"a\xff":         "UTF-8",
		`a.b"c`:         "may not contain",
		`conversation]`: "may not contain",
	}
	for in, want := range invalid {
		if _, err := ParseUnsetPath(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseUnsetPath(%q) = %v, want an error containing %q", in, err, want)
		}
	}
}

// FuzzParseUnsetPath: no input panics; an accepted path has non-empty
// segments free of the syntax's separators, and its canonical spelling
// parses back to the same value (so what `check config-delta` prints is
// what JP would read).
func FuzzParseUnsetPath(f *testing.F) {
	for _, s := range []string{"assistant.model.parameters.temperature", `conversation.attachments["stale-file.md"]`,
		`x["a\"b"]`, `a["x"]["y"]`, "a..b", `a["\ud800"]`, `a["\u0000"]`, "a[", "]", `a[""]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseUnsetPath(s)
		if err != nil {
			return
		}
		if len(u.Segments) == 0 {
			t.Fatalf("%q: accepted with no segments", s)
		}
		for _, seg := range u.Segments {
			if seg == "" || strings.IndexFunc(seg, badSegmentRune) >= 0 || !utf8.ValidString(seg) {
				t.Fatalf("%q: bad segment %q accepted", s, seg)
			}
		}
		if u.Element != nil && *u.Element == "" {
			t.Fatalf("%q: empty element accepted", s)
		}
		c := u.String()
		v, err := ParseUnsetPath(c)
		if err != nil {
			t.Fatalf("%q: canonical form %q does not parse: %v", s, c, err)
		}
		if !reflect.DeepEqual(u, v) || v.String() != c {
			t.Fatalf("%q: round trip %q changed %+v to %+v", s, c, u, v)
		}
	})
}
