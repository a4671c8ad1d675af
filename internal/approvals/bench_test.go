package approvals

import (
	"fmt"
	"path/filepath"
	"testing"
)

// benchStore writes a store of n entries, larger than any real one.
func benchStore(b *testing.B, n int) string {
	b.Helper()
	s := New(filepath.Join(b.TempDir(), FileName))
	for i := range n {
		s.Approve(fmt.Sprintf("mounts/m%03d", i), fmt.Sprintf("/home/me/code/forks/f%03d", i), "/ws", t0)
	}
	if err := s.Save(false); err != nil {
		b.Fatal(err)
	}
	return s.Path()
}

// BenchmarkLoad measures reading a 200-entry store, which the compiler
// does once per compile.
func BenchmarkLoad(b *testing.B) {
	p := benchStore(b, 200)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Load(p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClassify measures one lookup, done once per external rule.
func BenchmarkClassify(b *testing.B) {
	s, _, _ := Load(benchStore(b, 200))
	b.ReportAllocs()
	for b.Loop() {
		if s.Classify("mounts/m100", "/home/me/code/forks/f100", "/ws").Kind != Approved {
			b.Fatal("not approved")
		}
	}
}

// BenchmarkSave measures an atomic rewrite (temp file, fsync, rename).
func BenchmarkSave(b *testing.B) {
	s, _, _ := Load(benchStore(b, 200))
	for b.Loop() {
		if err := s.Save(false); err != nil {
			b.Fatal(err)
		}
	}
}
