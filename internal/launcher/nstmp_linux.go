//go:build linux

package launcher

import (
	"strings"

	"github.com/jp-policy/jp-policy/internal/plan/landlock"
)

// nsTmpName is the directory under the private /tmp that becomes the
// namespaced run's TMPDIR when grants lie beneath /tmp (see nsTmp).
const nsTmpName = "/tmp/.jp-policy-tmp"

// nsTmp decides the namespaced run's temporary directories from the
// Landlock rules fs of the tool (its grants, as bound in the new root).
//
// /tmp is a private tmpfs. When no grant lies beneath it, /tmp itself is
// the TMPDIR and gets every temporary right (execute included). A grant
// beneath /tmp (a workspace in /tmp) is bound inside that tmpfs, and a
// Landlock rule on /tmp reaches it: /tmp then keeps only what every grant
// beneath it already has (nsTmpRights), so a full rule cannot void the
// grants' split. TMPDIR is then a second private tmpfs on a fresh
// directory under /tmp that no grant reaches, with every temporary right:
// writable and executable wherever the workspace is.
//
// It returns TMPDIR, the extra tmpfs mount points, and the rules to add.
func nsTmp(fs []landlock.PathRule) (tmpdir string, tmpfs []string, rules []landlock.PathRule) {
	tmp := landlock.PathRule{Path: "/tmp", Access: nsTmpRights(fs).Names(), Clause: "namespace.tmp"}
	if !anyBeneath(fs, "/tmp") {
		return "/tmp", nil, []landlock.PathRule{tmp}
	}
	dir := nsTmpName
	for anyBeneath(fs, dir) || anyAt(fs, dir) {
		dir += "_"
	}
	own := landlock.PathRule{Path: dir, Access: tmpRights.Names(), Clause: "namespace.tmpdir"}
	return dir, []string{dir}, []landlock.PathRule{tmp, own}
}

// anyBeneath reports whether a rule's path lies strictly beneath dir.
func anyBeneath(fs []landlock.PathRule, dir string) bool {
	prefix := strings.TrimSuffix(dir, "/") + "/"
	for _, r := range fs {
		if strings.HasPrefix(r.Path, prefix) {
			return true
		}
	}
	return false
}

func anyAt(fs []landlock.PathRule, p string) bool {
	for _, r := range fs {
		if r.Path == p {
			return true
		}
	}
	return false
}
