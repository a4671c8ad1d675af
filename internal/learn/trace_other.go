//go:build !linux

package learn

import (
	"errors"
	"runtime"

	"golang.org/x/net/bpf"
)

// Result is how an observed run ended.
type Result struct {
	ExitCode   int
	Obs        Observations
	ForeignABI bool
}

// Supported reports whether this build can observe a command.
func Supported() error {
	return errors.New("learn observes commands with seccomp, which only Linux has (not " + runtime.GOOS + ")")
}

// Run refuses off Linux.
func Run([]string, string, []string) (*Result, error) { return nil, Supported() }

// RunDenials refuses off Linux.
func RunDenials([]string, string, []string) (*Result, error) { return nil, Supported() }

// DenialsEnv is exec --denials' variable (trace_linux.go).
const DenialsEnv = "JP_POLICY_DENIALS_TRACE"

// TraceFilter refuses off Linux.
func TraceFilter() ([]bpf.RawInstruction, error) { return nil, Supported() }
