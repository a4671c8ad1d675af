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

// TestSandboxRoundTrip: what the parent decides is what stage 2 applies,
// and "no filter" (nil, --best-effort without seccomp) stays apart from
// an empty program.
func TestSandboxRoundTrip(t *testing.T) {
	for _, s := range []*Sandbox{sampleSandbox(), {}, {Filter: []bpf.RawInstruction{}}} {
		got, err := DecodeSandbox(EncodeSandbox(s))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, s) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, s)
		}
	}
}

func TestSandboxRefusesForeign(t *testing.T) {
	good := EncodeSandbox(sampleSandbox())
	for name, b := range map[string][]byte{
		"empty":         nil,
		"truncated":     good[:len(good)-1],
		"trailing":      append(append([]byte{}, good...), []byte("{}")...),
		"unknown field": []byte(`{"abi":6,"everything":true}`),
		"bad opcode":    []byte(`{"filter":[{"Op":70000}]}`),
	} {
		if _, err := DecodeSandbox(b); err != ErrSandboxSyntax {
			t.Errorf("%s: err %v, want ErrSandboxSyntax", name, err)
		}
	}
}

// FuzzDecodeSandbox: nothing panics, and whatever decodes re-encodes to
// a sandbox that decodes the same.
func FuzzDecodeSandbox(f *testing.F) {
	f.Add(EncodeSandbox(sampleSandbox()))
	f.Add(EncodeSandbox(&Sandbox{}))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := DecodeSandbox(b)
		if err != nil {
			return
		}
		again, err := DecodeSandbox(EncodeSandbox(s))
		if err != nil || !reflect.DeepEqual(again, s) {
			t.Fatalf("%+v re-decoded as %+v (%v)", s, again, err)
		}
	})
}
