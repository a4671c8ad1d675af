//go:build unix

package artifact

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestLockPin: a reader's shared lock waits for a compile's exclusive
// one (so a reader that looks again sees the pin the compile wrote), and
// readers do not wait for each other.
func TestLockPin(t *testing.T) {
	dir := t.TempDir()
	unlockW := LockPin(dir, "/ws", "/ws/.jp/policy/policy.json", true)
	var released atomic.Bool
	got := make(chan bool, 1)
	go func() {
		unlock := LockPin(dir, "/ws", "/ws/.jp/policy/policy.json", false)
		got <- released.Load()
		unlock()
	}()
	// The reader is blocked in flock, or about to be: no pause makes
	// that certain, so the check is on the order instead. Granted before
	// the writer let go is the failure, whenever the reader gets there.
	select {
	case <-got:
		t.Fatal("the shared lock was granted while a writer held the exclusive one")
	default:
	}
	released.Store(true)
	unlockW()
	if after := <-got; !after {
		t.Fatal("the shared lock was granted while a writer held the exclusive one")
	}
	r1 := LockPin(dir, "/ws", "/ws/.jp/policy/policy.json", false)
	done := make(chan struct{})
	go func() {
		LockPin(dir, "/ws", "/ws/.jp/policy/policy.json", false)()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("a reader waited for another reader")
	}
	r1()
	// Another workspace's pin has its own lock.
	w := LockPin(dir, "/ws", "/ws/.jp/policy/policy.json", true)
	LockPin(dir, "/other", "/other/.jp/policy/policy.json", true)()
	w()
}
