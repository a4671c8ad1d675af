package nsroot

import (
	"reflect"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	var e encoder
	e.Num(0)
	e.Num(300)
	e.Num(1<<64 - 1)
	e.Str("")
	e.Str("héllo")
	e.Bytes([]byte{0, 1, 2})
	e.Strs([]string{"a", "", "c"})
	e.Strs(nil)
	e.Flag(true)
	e.Flag(false)
	d := newDecoder(string(e.B))
	got := []any{d.Num(), d.Num(), d.Num(), d.Str(), d.Str(), d.Bytes(), d.Strs(), d.Strs(), d.Flag(), d.Flag()}
	want := []any{uint64(0), uint64(300), uint64(1<<64 - 1), "", "héllo", []byte{0, 1, 2}, []string{"a", "", "c"}, []string(nil), true, false}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip\n got %#v\nwant %#v", got, want)
	}
	if !d.Done() {
		t.Fatal("not done after reading everything")
	}
}

func TestRejects(t *testing.T) {
	for name, tc := range map[string]struct {
		in   string
		read func(*decoder)
	}{
		"padded varint":       {"\x80\x00", func(d *decoder) { d.Num() }},
		"padded varint, 300":  {"\xac\x82\x00", func(d *decoder) { d.Num() }},
		"truncated varint":    {"\x80", func(d *decoder) { d.Num() }},
		"empty":               {"", func(d *decoder) { d.Num() }},
		"string past the end": {"\x05abc", func(d *decoder) { d.Str() }},
		"count past the end":  {"\x09\x00", func(d *decoder) { d.Strs() }},
		"flag 2":              {"\x02", func(d *decoder) { d.Flag() }},
		"over max":            {"\x05", func(d *decoder) { d.Max(4) }},
	} {
		d := newDecoder(tc.in)
		tc.read(d)
		if !d.Failed() || d.Done() {
			t.Errorf("%s: %q accepted", name, tc.in)
		}
		if d.Num() != 0 || d.Str() != "" || d.Flag() {
			t.Errorf("%s: reads after a failure return values", name)
		}
	}
}

// FuzzNum: what decodes re-encodes to the same bytes (one spelling).
func FuzzNum(f *testing.F) {
	f.Add([]byte{0x80, 0x00})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		d := newDecoder(string(b))
		v := d.Num()
		if d.Failed() {
			return
		}
		var e encoder
		e.Num(v)
		if string(e.B) != string(b[:len(b)-d.Left()]) {
			t.Fatalf("%x decodes to %d, which encodes as %x", b, v, e.B)
		}
	})
}
