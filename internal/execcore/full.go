package execcore

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// fullName is the full CLI's file name.
func fullName() string {
	if runtime.GOOS == "windows" {
		return "jp-policy.exe"
	}
	return "jp-policy"
}

// beside is the executable file name in this binary's directory (how `go
// install ./cmd/...` and the release archives install jp-policy and
// jp-policy-exec), "" when there is none.
func beside(name string) string {
	self, err := os.Executable()
	if err != nil {
		return ""
	}
	p := filepath.Join(filepath.Dir(self), name)
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
		return ""
	}
	return p
}

// Stage2Binary is the binary the namespaced path re-executes as its stage
// 2: jp-policy-exec beside this one, whose start-up is a fraction of the
// full CLI's (it links no proxy, no compiler, no kong), else "" for this
// binary itself. Both carry the same stage 2 (nsroot plus this package's
// Finalize hook) from the same build.
func Stage2Binary() string { return beside("jp-policy-exec") }

// fullBinary finds the full jp-policy: beside this binary, else on PATH.
func fullBinary() (string, error) {
	if p := beside(fullName()); p != "" {
		return p, nil
	}
	p, err := exec.LookPath("jp-policy")
	if err != nil {
		return "", errors.New("jp-policy is neither beside jp-policy-exec nor on PATH; install both (go install ./cmd/...)")
	}
	return p, nil
}
