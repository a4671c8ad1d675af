package nsroot

import (
	"bytes"
	"reflect"
	"testing"
)

func sampleSpec() *Spec {
	return &Spec{
		Path: "/usr/bin/git", Argv: []string{"git", "status"}, Env: []string{"HOME=/home/u", "A="},
		Workdir: "/home/u/ws",
		Binds: []Bind{
			{Src: "/usr", Dst: "/usr"},
			{Src: "/home/u/ws", Dst: "/home/u/ws", RW: true},
			{Src: "/opt/x", Dst: "/opt/x", Optional: true},
		},
		Tmpfs:    []string{"/tmp"},
		Symlinks: []Symlink{{Target: "usr/bin", Path: "/bin"}},
		Masks:    []string{"/home/u/ws/.env"},
		Dev:      true, Proc: true, Net: true,
		Listen: []string{"127.0.0.1:0"},
		Extra:  []byte{0, 1, 2, 0xff},
	}
}

func TestSpecRoundTrip(t *testing.T) {
	for _, s := range []*Spec{{}, sampleSpec()} {
		got, err := decodeSpec(s.encode())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, s) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got, s)
		}
	}
}

func TestSpecRejects(t *testing.T) {
	good := sampleSpec().encode()
	for name, b := range map[string][]byte{
		"empty":     nil,
		"magic":     append([]byte("nsr0"), good[4:]...),
		"truncated": good[:len(good)-1],
		"trailing":  append(bytes.Clone(good), 0),
		"huge list": append([]byte(specMagic+"\x00"), 0xff, 0xff, 0xff, 0xff, 0x0f),
		"bad flag":  bytes.Replace(good, []byte("\x01\x01\x01"), []byte("\x02\x01\x01"), 1),
		// 0 spelt in two bytes: a second form of the empty spec.
		"long varint": append([]byte(specMagic+"\x80\x00"), (&Spec{}).encode()[len(specMagic)+1:]...),
	} {
		if _, err := decodeSpec(b); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

// FuzzDecodeSpec: decoding never panics, and whatever decodes encodes back
// to the same bytes (the format has one spelling per spec).
func FuzzDecodeSpec(f *testing.F) {
	f.Add(sampleSpec().encode())
	f.Add((&Spec{}).encode())
	f.Add([]byte(specMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := decodeSpec(b)
		if err != nil {
			return
		}
		if again := s.encode(); !bytes.Equal(again, b) {
			t.Fatalf("decode/encode changed the bytes:\n in %q\nout %q", b, again)
		}
	})
}
