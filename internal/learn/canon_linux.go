//go:build linux

package learn

import (
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// maxDirs bounds the cache of canonical directories.
const maxDirs = 4096

// canon is name made canonical at the moment of the call, through
// policy's one canonicaliser: the directory above it resolved through
// symlinks (cached: a run names the same directories over and over), and
// name itself too when the call follows a final symlink. name was made
// absolute lexically (abs), as policy reads a rule path.
func (t *tracer) canon(name string, follow bool) string {
	if name == "" {
		return ""
	}
	dir, base := filepath.Split(name)
	dir = filepath.Clean(dir)
	c, ok := t.dirs[dir]
	if !ok {
		var err error
		if c, err = policy.CanonicalAbs(dir); err != nil {
			c = dir
		}
		if len(t.dirs) >= maxDirs {
			// The command chooses how many directories it names.
			clear(t.dirs)
		}
		t.dirs[dir] = c
	}
	p := filepath.Join(c, base)
	if follow {
		var st unix.Stat_t
		if unix.Lstat(p, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			if r, err := policy.CanonicalAbs(p); err == nil {
				return r
			}
		}
	}
	return p
}
