package execplan

import (
	"reflect"
	"testing"

	"golang.org/x/net/bpf"
)

func sampleSandbox() *Sandbox {
	return &Sandbox{
		ABI:        6,
		HandledFS:  0x7fff,
		Baseline:   []Rule{{Path: "/usr", Access: 0x5, Clause: "baseline /usr"}, {Path: "/lib64", Access: 0x5, Clause: "baseline /lib64", Optional: true}},
		FS:         []Rule{{Path: "/ws", Access: 0x7fff, Clause: "fs ."}, {Path: "/tmp", Access: 0x1f, Clause: "namespace.tmp"}},
		HandledNet: 0x3,
		ConnectTCP: []uint16{3128},
		BindTCP:    []uint16{},
		Scoped:     0x3,
		Filter:     []bpf.RawInstruction{{Op: 0x20, K: 4}, {Op: 0x15, Jt: 1, Jf: 0, K: 0xc000003e}, {Op: 0x6, K: 0x7fff0000}},
	}
}

func TestSandboxRoundTrip(t *testing.T) {
	for name, s := range map[string]*Sandbox{
		"full":      sampleSandbox(),
		"empty":     {},
		"no filter": {ABI: 1, HandledFS: 0xd, FS: []Rule{{Path: "/ws", Access: 0xd}}},
		// An empty program is not "no filter": the flag keeps them apart.
		"empty filter": {Filter: []bpf.RawInstruction{}},
	} {
		got, err := DecodeSandbox(EncodeSandbox(s))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if (got.Filter == nil) != (s.Filter == nil) {
			t.Errorf("%s: filter presence %v, want %v", name, got.Filter != nil, s.Filter != nil)
		}
		if len(s.Filter) == 0 {
			got.Filter, s.Filter = nil, nil
		}
		if len(s.BindTCP) == 0 {
			got.BindTCP, s.BindTCP = nil, nil
		}
		if !reflect.DeepEqual(got, s) {
			t.Errorf("%s: round trip\n got %+v\nwant %+v", name, got, s)
		}
	}
}

func TestSandboxRejects(t *testing.T) {
	good := EncodeSandbox(sampleSandbox())
	for name, b := range map[string][]byte{
		"no magic":       good[len(sandboxMagic):],
		"a plan's magic": append([]byte(planMagic), good[len(sandboxMagic):]...),
		"truncated":      good[:len(good)-1],
		"trailing byte":  append(append([]byte(nil), good...), 0),
		// No filter flagged, yet instructions follow.
		"program without its flag": append(EncodeSandbox(&Sandbox{})[:len(EncodeSandbox(&Sandbox{}))-1], 1, 6, 0, 0, 0),
	} {
		if _, err := DecodeSandbox(b); err != ErrSandboxSyntax {
			t.Errorf("%s: err %v, want ErrSandboxSyntax", name, err)
		}
	}
}

// FuzzDecodeSandbox: nothing panics, and whatever decodes re-encodes to
// the same bytes (one spelling per sandbox, so a forged second spelling
// cannot mean something else to another reader).
func FuzzDecodeSandbox(f *testing.F) {
	f.Add(EncodeSandbox(sampleSandbox()))
	f.Add(EncodeSandbox(&Sandbox{}))
	f.Add([]byte(sandboxMagic + "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := DecodeSandbox(b)
		if err != nil {
			return
		}
		if again := EncodeSandbox(s); string(again) != string(b) {
			t.Fatalf("decoded sandbox re-encodes differently:\n%q\n%q", again, b)
		}
	})
}
