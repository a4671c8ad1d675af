//go:build linux

package launcher

import (
	"path/filepath"

	"github.com/jp-policy/jp-policy/internal/plan/landlock"
)

// Every exec gets a private writable temporary directory, exported as
// TMPDIR (an addition to RFD 075's minimal environment: /tmp is outside
// every grant, and compilers, test runners and package managers write
// there).
//
// On the namespaced path it is the private tmpfs on /tmp, which goes away
// with the mount namespace. The fast path ends in execve with nothing
// left to clean up afterwards, so its directory is
// <os.TempDir()>/jp-policy-<uid>/<pid>-<start time>: the tool keeps the
// launcher's pid across execve, and the start time (field 22 of
// /proc/PID/stat) tells a reused pid apart. Every fast-path exec first
// removes the directories of this user's tools that no longer run. The
// root is the user's own (created 0700, refused when it is a symlink,
// someone else's or open to others), so no other user can plant or read
// anything there. A directory lives from its tool's start until the next
// exec after the tool's exit; processes the tool left behind lose it then.

// tmpRights is what the tool may do in its temporary directory.
var tmpRights = landlock.TmpRights

// nsTmpDir is the namespaced path's private tmpfs.
const nsTmpDir = "/tmp"

// setTmp gives the plan its private temporary directory: /tmp on the
// namespaced path; otherwise a fresh directory, added to the tool's
// Landlock grants (the manifest is copied, never changed in place).
func (p *Plan) setTmp(dry bool) error {
	if p.Namespaced {
		p.Env = WithVar(p.Env, "TMPDIR", nsTmpDir)
		return nil
	}
	root := TmpRoot()
	if dry {
		p.Env = WithVar(p.Env, "TMPDIR", filepath.Join(TmpWorkspaceDir(root, p.Manifest.Root), "PID-START"))
		return nil
	}
	dir, err := FastTmpDir(root, p.Manifest.Root)
	if err != nil {
		return err
	}
	m := *p.Manifest
	rule := landlock.PathRule{Path: dir, Access: tmpRights.Names(), Clause: "tmpdir"}
	m.FS = append(append([]landlock.PathRule(nil), m.FS...), rule)
	if m.MaskedFS != nil {
		m.MaskedFS = append(append([]landlock.PathRule(nil), m.MaskedFS...), rule)
	}
	p.Manifest = &m
	p.Env = WithVar(p.Env, "TMPDIR", dir)
	p.Env = withScratchHome(p.Env, dir, m.FS) // home_linux.go
	return nil
}
