//go:build darwin

package launcher

import (
	"os"
	"path/filepath"
)

// setMacTmp gives a macOS run its private scratch directory: a fresh
// directory under the launcher's own temporary directory (macOS's is the
// user's 0700 /var/folders/…/T), canonical because the profile compares
// resolved paths, granted read-write by the profile's baseline.tmp
// (sbpl.TmpDirParam) and exported as TMPDIR, whatever the environment
// rules let through. A run the launcher supervises (net rules) removes
// it afterwards; one that ends in exec leaves it to macOS, which clears
// old files from that directory.
func (p *Plan) setMacTmp() error {
	dir, err := os.MkdirTemp("", "jp-policy-")
	if err == nil {
		dir, err = filepath.EvalSymlinks(dir)
	}
	if err != nil {
		return &TmpDirError{Path: os.TempDir(), Err: err}
	}
	p.TmpDir = dir
	p.Env = WithVar(p.Env, "TMPDIR", dir)
	return nil
}
