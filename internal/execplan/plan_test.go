package execplan

import (
	"bytes"
	"reflect"
	"slices"
	"testing"

	"github.com/jp-policy/jp-policy/internal/rulematch"
	"github.com/jp-policy/jp-policy/internal/seccomp"

	"golang.org/x/net/bpf"
)

func samplePlan() *Plan {
	return &Plan{
		Tool: "t", Root: "/ws",
		ExecSHA256: SHA256Hex([]byte("x")), Enabled: true,
		Fast: &Fast{
			LinuxSHA256: SHA256Hex([]byte("l")), NeedABI: 6,
			Sockets:    []string{"/ws"},
			EnvMinimal: []string{"PATH", "LC_*"},
			EnvRules:   []rulematch.EnvRule{{Name: "GITHUB_TOKEN", Read: true}, {Name: "AWS_*"}},
			Commands: map[string]rulematch.CommandRule{
				"git":      {Args: [][]string{{"status"}, {"log", "**"}}, Envs: []string{}},
				"/bin/cat": {},
			},
			Baseline:    []Rule{{Path: "/usr", Access: 7, Clause: "baseline.usr", Optional: true}},
			FS:          []Rule{{Path: "/ws/src", Access: 1<<13 | 4, Clause: "fs[0]"}},
			NetRestrict: true, ConnectTCP: []uint16{443}, BindTCP: []uint16{8080, 65535},
			Scoped: 3, TmpAccess: 0x1ffe, HandledFS: []uint64{0, 0x1fff, 0x3fff},
			FilterArch: "amd64", Filter: []bpf.RawInstruction{{Op: 0x20, K: 4}, {Op: 0x15, Jt: 1, Jf: 255, K: 0xc000003e}},
			Seccomp: seccomp.Spec{Inet: seccomp.InetTCP, Listen: true, XattrRead: true},
		},
	}
}

// TestPlanRoundTrip: Decode reads back exactly what Encode wrote, with
// the nil/empty distinctions that carry meaning (no commands map: any
// program; nil args: any arguments; empty envs: none).
func TestPlanRoundTrip(t *testing.T) {
	for _, p := range []*Plan{samplePlan(), {Tool: "off", Root: "/ws"}} {
		got, err := Decode(Encode(p))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, p) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, p)
		}
	}
	p := samplePlan()
	p.Fast.Commands = nil
	got, err := Decode(Encode(p))
	if err != nil || got.Fast.Commands != nil {
		t.Fatalf("nil commands (any program) came back as %v (%v)", got.Fast.Commands, err)
	}
}

// TestPlanRejects: every damaged plan is refused, never read as a
// narrower or wider one.
func TestPlanRejects(t *testing.T) {
	good := Encode(samplePlan())
	for i := range len(good) {
		if _, err := Decode(good[:i]); err == nil {
			t.Fatalf("a plan cut at %d bytes was accepted", i)
		}
	}
	if _, err := Decode(append(slices.Clip(good), 0)); err == nil {
		t.Fatal("trailing bytes accepted")
	}
	bad := samplePlan()
	bad.Fast.Seccomp.Inet = "everything"
	if _, err := Decode(Encode(bad)); err == nil {
		t.Fatal("an unknown seccomp inet mode was accepted")
	}
}

// FuzzDecodePlan: Decode never panics, and what it accepts encodes to a
// plan that decodes to the same value (no two readings of one file).
func FuzzDecodePlan(f *testing.F) {
	f.Add(Encode(samplePlan()))
	f.Add(Encode(&Plan{}))
	f.Add([]byte(planMagic + "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Decode(b)
		if err != nil {
			return
		}
		enc := Encode(p)
		if !bytes.Equal(enc, b) {
			// Two byte strings for one plan would let a file that is not
			// what compile wrote decode; the pin hashes bytes, so this is
			// about Decode being exactly Encode's inverse.
			t.Fatalf("decoded plan re-encodes differently:\n%q\n%q", b, enc)
		}
		again, err := Decode(enc)
		if err != nil {
			t.Fatalf("re-encoded plan refused: %v", err)
		}
		if !reflect.DeepEqual(again, p) {
			t.Fatalf("re-encoded plan differs:\n%+v\n%+v", again, p)
		}
	})
}
