package artifact

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/jp-policy/jp-policy/internal/policy"
)

func reviewedSample() *Policy {
	t := true
	return &Policy{Root: "/ws/<&>\"q\"", Tools: map[string]*Tool{
		"b":     {Source: "local", Enabled: true, Access: policy.AccessPolicy{FS: []policy.FsRule{{LexicalPath: "src/<a>&b", Read: &t}}}},
		"a.x-1": {Source: "local.x", Defaulted: true, Access: policy.Default()},
		"a":     {Source: "local", Access: policy.AccessPolicy{Commands: map[string]policy.CommandRule{"git": {Args: [][]string{{"status"}}}}}},
	}}
}

// TestReviewedHasherIsMarshal: the record hashed a tool at a time is
// byte for byte the record WritePinReviewed writes (json.Marshal of the
// whole), HTML-escaping included, for none, one and several tools.
func TestReviewedHasherIsMarshal(t *testing.T) {
	full := reviewedSample()
	for _, keep := range [][]string{nil, {"b"}, {"a", "a.x-1", "b"}} {
		p := &Policy{Root: full.Root, Tools: map[string]*Tool{}}
		for _, n := range keep {
			p.Tools[n] = full.Tools[n]
		}
		want, err := json.Marshal(ReviewedOf(p))
		if err != nil {
			t.Fatal(err)
		}
		rh, err := NewReviewedHasher(p.Root)
		if err != nil {
			t.Fatal(err)
		}
		names := slices.Sorted(func(yield func(string) bool) {
			for n := range p.Tools {
				if !yield(n) {
					return
				}
			}
		})
		for _, n := range names {
			e, err := ReviewedEntry(p.Tools[n])
			if err != nil {
				t.Fatal(err)
			}
			rh.Tool(n, e)
		}
		if got := rh.Sum(); got != SHA256Hex(append(want, '\n')) {
			t.Errorf("%v: hashed %s, the written record hashes %s", keep, got, SHA256Hex(append(want, '\n')))
		}
	}
}

// TestWritePinReviewedKeepsRecord: given the record's hash, an identical
// record beside the pin is kept (not rewritten); one that differs (edited,
// truncated, missing) is written again, and the pin names what is there.
func TestWritePinReviewedKeepsRecord(t *testing.T) {
	data, root, ap := t.TempDir(), "/ws", "/ws/.jp/policy/policy.json"
	p := reviewedSample()
	p.Root = root
	if err := WritePinReviewed(data, root, ap, SHA256Hex(nil), nil, nil, p, ""); err != nil {
		t.Fatal(err)
	}
	gpath := GrantsFile(data, root, ap)
	sum, err := HashFile(gpath)
	if err != nil || sum == "" || ReviewedSHA256(data, root, ap) != sum {
		t.Fatalf("first write: %q %v, pin names %q", sum, err, ReviewedSHA256(data, root, ap))
	}
	before, _ := os.Stat(gpath)
	if err := WritePinReviewed(data, root, ap, SHA256Hex(nil), nil, nil, p, sum); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(gpath); !os.SameFile(before, after) {
		t.Error("an identical record was written again")
	}
	for name, spoil := range map[string]func(){
		"edited":  func() { os.WriteFile(gpath, []byte(`{"root":"/ws","tools":{}}`+"\n"), 0o600) },
		"missing": func() { os.Remove(gpath) },
	} {
		spoil()
		if err := WritePinReviewed(data, root, ap, SHA256Hex(nil), nil, nil, p, sum); err != nil {
			t.Fatal(err)
		}
		if now, err := HashFile(gpath); err != nil || now != sum || ReviewedSHA256(data, root, ap) != sum {
			t.Errorf("%s: record now %q (%v), pin names %q; want %s", name, now, err, ReviewedSHA256(data, root, ap), sum)
		}
	}
	if got := ReviewedSHA256(data, "/other", ap); got != "" {
		t.Errorf("another root's pin key gave %q", got)
	}
	os.WriteFile(PinFile(data, root, ap), []byte("garbage"), 0o600)
	if got := ReviewedSHA256(data, root, ap); got != "" {
		t.Errorf("unreadable pin gave %q", got)
	}
}
