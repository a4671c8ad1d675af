//go:build !linux

package seccomp

import (
	"errors"

	"golang.org/x/net/bpf"
)

var errNotLinux = errors.New("seccomp filters exist only on Linux")

// Install is Linux-only.
func Install([]bpf.RawInstruction) error { return errNotLinux }

// Available is Linux-only.
func Available() error { return errNotLinux }
