package launcher

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

// decodeFull is the reference: encoding/json over the whole document.
func decodeFull(b []byte, tool string) (leanArtifact, []string, bool, error) {
	var a leanArtifact
	if err := json.Unmarshal(b, &a); err != nil {
		return a, nil, false, err
	}
	var names []string
	for n := range a.Tools {
		names = append(names, n)
	}
	t, ok := a.Tools[tool]
	a.Tools = nil
	if ok {
		a.Tools = map[string]leanTool{tool: t}
	}
	return a, names, ok, nil
}

func TestLeanArtifactDecode(t *testing.T) {
	tests := []struct {
		name, doc string
		found     bool
		wantErr   bool
	}{
		{"found", `{"format":1,"root":"/ws","digest":"d","inputs":[{"kind":"layer","path":"/p","sha256":"x"}],
			"tools":{"a":{"enabled":true,"enforcement":{"linux":[{"id":"fs[0]","how":"a \"quoted\" } ] { ["}]},"manifests":{"linux":"landlock/a.json"}},
			"b":{"enabled":false}},"extra":[1,2,{"x":null}]}`, true, false},
		{"escaped keys", `{"form\u0061t":1,"tools":{"\u0061":{"enabled":true}}}`, true, false},
		{"missing tool", `{"format":1,"tools":{"b":{}}}`, false, false},
		{"no tools", `{"format":1}`, false, false},
		{"empty", `{}`, false, false},
		{"whitespace", " \n{ \"tools\" : { \"a\" : { } } }\n", true, false},
		{"truncated", `{"format":1,"tools":{"a":{"enabled":true}`, false, true},
		{"trailing data", `{"format":1} x`, false, true},
		{"not an object", `[1]`, false, true},
		{"bad tool value", `{"tools":{"a":{"enabled":"yes"}}}`, false, true},
		{"bad header value", `{"format":"one"}`, false, true},
		{"unterminated string", `{"root":"abc`, false, true},
		{"missing colon", `{"root" "abc"}`, false, true},
		{"missing value", `{"root":,"format":1}`, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a leanArtifact
			names, found, err := leanArtifactDecode([]byte(tt.doc), "a", &a)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if found != tt.found {
				t.Errorf("found %v, want %v", found, tt.found)
			}
			want, wantNames, _, ferr := decodeFull([]byte(tt.doc), "a")
			if ferr != nil {
				t.Fatalf("reference decode failed: %v", ferr)
			}
			sort.Strings(names)
			sort.Strings(wantNames)
			if !reflect.DeepEqual(a, want) || !slices.Equal(names, wantNames) {
				t.Errorf("lean %+v %v\nfull %+v %v", a, names, want, wantNames)
			}
		})
	}
}

func TestLeanArtifactDuplicateTool(t *testing.T) {
	var a leanArtifact
	_, _, err := leanArtifactDecode([]byte(`{"tools":{"a":{"enabled":false},"a":{"enabled":true}}}`), "a", &a)
	if _, ok := errors.AsType[*DuplicateToolError](err); !ok {
		t.Fatalf("error %v, want *DuplicateToolError", err)
	}
}

// FuzzLeanArtifactDecode: the lean decoder never panics; every document
// encoding/json accepts, the scanner accepts too, except the two
// duplications it refuses on purpose (deliberatelyRejected); and then it
// yields exactly what encoding/json yields. A document only encoding/json
// rejects may still pass the scanner, which does not validate the parts
// it skips.
func FuzzLeanArtifactDecode(f *testing.F) {
	f.Add([]byte(`{"format":1,"root":"/ws","tools":{"a":{"enabled":true,"manifests":{"linux":"x"}},"b":{}}}`))
	f.Add([]byte(`{"tools":{"a":{"access":{"env":[{"name":"X*","read":true}],"commands":{"sh":{"args":[["-c","**"]]}}}}}}`))
	f.Add([]byte(`{"inputs":[{"kind":"env","path":"JP_CFG_X","sha256":"ab"}],"tools":{"\u0061":{"x":"]}\"["}}}`))
	f.Add([]byte(`{"tools":{"a":{}},"tools":{"b":{}}}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		var a leanArtifact
		names, found, err := leanArtifactDecode(doc, "a", &a)
		want, wantNames, wantFound, ferr := decodeFull(doc, "a")
		if ferr != nil {
			return
		}
		if err != nil {
			if deliberatelyRejected(doc, "a") {
				return
			}
			t.Fatalf("encoding/json accepts %q, the scanner rejects it: %v", doc, err)
		}
		sort.Strings(names)
		sort.Strings(wantNames)
		names = slices.Compact(names)
		if found != wantFound || !reflect.DeepEqual(a, want) || !slices.Equal(names, wantNames) {
			t.Fatalf("lean %+v %v %v\nfull %+v %v %v", a, found, names, want, wantFound, wantNames)
		}
	})
}

// deliberatelyRejected reports whether a document encoding/json accepts
// repeats what the scanner refuses to resolve by "last one wins": a second
// top-level "tools" member (matched case-insensitively, as encoding/json
// matches it) or a second entry for tool. It walks the document with
// encoding/json's tokenizer, independently of the scanner.
func deliberatelyRejected(doc []byte, tool string) bool {
	d := json.NewDecoder(bytes.NewReader(doc))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	toolsSeen := false
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return false
		}
		if !strings.EqualFold(k.(string), "tools") {
			var skip json.RawMessage
			if d.Decode(&skip) != nil {
				return false
			}
			continue
		}
		if toolsSeen {
			return true
		}
		toolsSeen = true
		if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
			return false // not an object: encoding/json would have failed
		}
		seen := false
		for d.More() {
			name, err := d.Token()
			if err != nil {
				return false
			}
			if name == tool {
				if seen {
					return true
				}
				seen = true
			}
			var skip json.RawMessage
			if d.Decode(&skip) != nil {
				return false
			}
		}
		if _, err := d.Token(); err != nil { // the closing brace
			return false
		}
	}
	return false
}
