//go:build linux || darwin

package execplan

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/jp-policy/jp-policy/internal/jpdirs"
)

// TestPinToolRefusesSpecialPin: a FIFO planted where the pin belongs is
// refused at once (it used to be opened blocking, and every exec would
// wait for a writer); the positive control is TestPinFileReadAtMatchesOSFile
// and every PinTool test with a regular pin.
func TestPinToolRefusesSpecialPin(t *testing.T) {
	data := t.TempDir()
	p := PinFile(data, "/ws", "/ws/.jp/policy/policy.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := PinTool(data, "/ws", "/ws/.jp/policy/policy.json", "t")
		done <- err
	}()
	select {
	case err := <-done:
		if _, ok := errors.AsType[*jpdirs.NotRegularError](err); !ok {
			t.Errorf("FIFO pin: %v, want a NotRegularError", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("PinTool blocked on a FIFO pin")
	}
}
