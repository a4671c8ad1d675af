package execplan

import (
	"bytes"
	"crypto/sha256"
	"testing"
)

// FuzzSum256: the exec path's own SHA-256 equals crypto/sha256's on every
// input (lengths around the block and padding boundaries are seeds).
func FuzzSum256(f *testing.F) {
	for _, n := range []int{0, 1, 55, 56, 63, 64, 65, 119, 120, 127, 128, 1000} {
		f.Add(bytes.Repeat([]byte{'a'}, n))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Sum256(b), sha256.Sum256(b); got != want {
			t.Fatalf("Sum256(%q) = %x, want %x", b, got, want)
		}
	})
}

func TestSum256Known(t *testing.T) {
	// FIPS 180-4's "abc" example.
	if got := Sum256([]byte("abc")); SHA256Hex([]byte("abc")) != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" || got != sha256.Sum256([]byte("abc")) {
		t.Fatalf("abc: %x", got)
	}
}

func BenchmarkSum256(b *testing.B) {
	data := bytes.Repeat([]byte{'x'}, 64<<10)
	b.Run("execplan", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			Sum256(data)
		}
	})
	b.Run("crypto-sha256", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			sha256.Sum256(data)
		}
	})
}
