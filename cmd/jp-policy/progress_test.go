package main

import (
	"strings"
	"testing"
	"time"
)

// TestProgressLine: a compile that ends within a second prints nothing;
// a longer one rewrites one line, at most every 100 ms (the last count
// always), and leaves no trace when cleared.
func TestProgressLine(t *testing.T) {
	var b strings.Builder
	now := time.Unix(0, 0)
	p := newProgressLine(&b, func() time.Time { return now })
	p.update("checking", 0, 10)
	p.update("writing", 5, 10)
	if b.Len() != 0 {
		t.Fatalf("printed within the first second: %q", b.String())
	}
	now = now.Add(1500 * time.Millisecond)
	p.update("writing", 6, 10)
	if got := b.String(); got != "\r\x1b[Kcompiling: writing 6/10 tools (60%)" {
		t.Fatalf("progress = %q", got)
	}
	b.Reset()
	now = now.Add(10 * time.Millisecond)
	p.update("writing", 7, 10)
	if b.Len() != 0 {
		t.Errorf("rewrote within 100 ms: %q", b.String())
	}
	p.update("writing", 10, 10)
	if !strings.Contains(b.String(), "10/10") {
		t.Errorf("the last count was dropped: %q", b.String())
	}
	b.Reset()
	(&clearFirst{p: p, w: &b}).Write([]byte("approve? "))
	if got := b.String(); got != "\r\x1b[Kapprove? " {
		t.Errorf("a prompt after progress = %q, want the line cleared first", got)
	}
	b.Reset()
	p.clear()
	if b.Len() != 0 {
		t.Errorf("cleared twice: %q", b.String())
	}
}
