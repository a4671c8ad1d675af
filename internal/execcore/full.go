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

// fullBinary finds the full jp-policy: beside this binary (how `go
// install ./cmd/...` and the release archives install them), else on
// PATH.
func fullBinary() (string, error) {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), fullName())
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	p, err := exec.LookPath("jp-policy")
	if err != nil {
		return "", errors.New("jp-policy is neither beside jp-policy-exec nor on PATH; install both (go install ./cmd/...)")
	}
	return p, nil
}
