//go:build darwin

package sbpl

import (
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// HostDeveloperDir is the developer directory `xcode-select -p` names on
// this Mac (Xcode's or the Command Line Tools'), with its links
// resolved as the sandbox compares paths; DefaultDeveloperDir when the
// tool is missing or says nothing usable. Asked once per process.
var HostDeveloperDir = sync.OnceValue(func() string {
	out, err := exec.Command("/usr/bin/xcode-select", "-p").Output()
	if err != nil {
		return DefaultDeveloperDir
	}
	dir := strings.TrimSpace(string(out))
	if !filepath.IsAbs(dir) {
		return DefaultDeveloperDir
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return dir
})
