package nsroot

// The stage-2 spec's encoding (spec.go): numbers are unsigned varints in
// their shortest form, strings and lists are length-prefixed, flags are
// one byte 0 or 1. It keeps every string byte for byte (JSON would
// replace an argument that is not UTF-8), and the decoder accepts exactly
// what the encoder writes, so a spec has one encoding: a padded varint
// (0x80 0x00 for 0), a flag other than 0 or 1, a count larger than the
// bytes left could hold, or a string running past the end marks the
// decoder failed, after which every read returns a zero value and the
// caller refuses the spec.

import "encoding/binary"

// encoder appends values to B.
type encoder struct{ B []byte }

// Num appends n as an unsigned varint.
func (e *encoder) Num(n uint64) { e.B = binary.AppendUvarint(e.B, n) }

// Str appends s with its length.
func (e *encoder) Str(s string) { e.Num(uint64(len(s))); e.B = append(e.B, s...) }

// Bytes appends b with its length (read back by Str or Bytes).
func (e *encoder) Bytes(b []byte) { e.Num(uint64(len(b))); e.B = append(e.B, b...) }

// Strs appends a list of strings.
func (e *encoder) Strs(ss []string) {
	e.Num(uint64(len(ss)))
	for _, s := range ss {
		e.Str(s)
	}
}

// Flag appends v as one byte, 0 or 1.
func (e *encoder) Flag(v bool) {
	if v {
		e.B = append(e.B, 1)
	} else {
		e.B = append(e.B, 0)
	}
}

// decoder reads what an encoder wrote, from a string so that the strings
// it returns share the input instead of copying it.
type decoder struct {
	s   string
	bad bool
}

// newDecoder reads s.
func newDecoder(s string) *decoder { return &decoder{s: s} }

// Fail marks the input malformed (a caller's own check failed).
func (d *decoder) Fail() { d.bad = true }

// Failed reports whether a read failed.
func (d *decoder) Failed() bool { return d.bad }

// Left is the number of bytes not read yet.
func (d *decoder) Left() int { return len(d.s) }

// Done reports whether the whole input was read without a failure.
func (d *decoder) Done() bool { return !d.bad && d.s == "" }

// Num reads an unsigned varint in its shortest form.
func (d *decoder) Num() uint64 {
	if d.bad {
		return 0
	}
	var buf [binary.MaxVarintLen64]byte
	n := copy(buf[:], d.s)
	v, k := binary.Uvarint(buf[:n])
	// k > 1 with a last byte of 0 is a padded spelling of a shorter
	// number (0x80 0x00 for 0): refused, one encoding per value.
	if k <= 0 || k > 1 && d.s[k-1] == 0 {
		d.bad = true
		return 0
	}
	d.s = d.s[k:]
	return v
}

// Max reads a number and fails above max.
func (d *decoder) Max(max uint64) uint64 {
	v := d.Num()
	if v > max {
		d.bad = true
		return 0
	}
	return v
}

// Count reads a list length; each element takes at least minBytes, so a
// count the rest of the input cannot hold fails (no huge allocation from
// a forged count).
func (d *decoder) Count(minBytes int) int {
	v := d.Num()
	if d.bad || v > uint64(len(d.s)/minBytes) {
		d.bad = true
		return 0
	}
	return int(v)
}

// Str reads a length-prefixed string (a slice of the input).
func (d *decoder) Str() string {
	n := d.Num()
	if d.bad || n > uint64(len(d.s)) {
		d.bad = true
		return ""
	}
	s := d.s[:n]
	d.s = d.s[n:]
	return s
}

// Bytes reads a length-prefixed string as bytes; empty is nil.
func (d *decoder) Bytes() []byte {
	if s := d.Str(); s != "" {
		return []byte(s)
	}
	return nil
}

// Strs reads a list of strings; empty is nil.
func (d *decoder) Strs() []string {
	n := d.Count(1)
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.Str()
	}
	return out
}

// Flag reads one byte, 0 or 1.
func (d *decoder) Flag() bool {
	if d.bad || d.s == "" || d.s[0] > 1 {
		d.bad = true
		return false
	}
	v := d.s[0] == 1
	d.s = d.s[1:]
	return v
}
