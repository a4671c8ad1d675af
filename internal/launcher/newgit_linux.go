package launcher

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/jp-policy/jp-policy/internal/emit/landlock"
	"github.com/jp-policy/jp-policy/internal/termstyle"
)

// absentGit lists the `.git` at the top of each writable bind that does
// not exist when the namespaced run starts. A `.git` that is not there is
// no mount point the root can keep read-only, and a tool could create
// one, with core.fsmonitor or a hook set, that the user's next git
// command there (or a git-aware shell prompt) runs unsandboxed. A rule
// cannot ask for one either: compile grants nothing on a path that does
// not exist. The user makes the repository; exec then keeps it read-only
// unless a rule names it.
func absentGit(ns *landlock.NSPlan) []string {
	var out []string
	for _, b := range ns.Binds {
		if !b.RW {
			continue
		}
		g := filepath.Join(b.Path, ".git")
		if _, err := os.Lstat(g); os.IsNotExist(err) {
			out = append(out, g)
		}
	}
	return out
}

// quarantineNewGit runs once the namespaced run is over, when the PID
// namespace has ended every process the tool started: a `.git` in
// absent that exists now was made by the tool, and is renamed aside
// before exec returns, so no git command runs what it holds. The user is
// told where it went.
func quarantineNewGit(absent []string) {
	for _, g := range absent {
		if _, err := os.Lstat(g); err != nil {
			continue
		}
		to := g + ".jp-policy-quarantine-" + strconv.FormatInt(time.Now().UnixNano(), 36)
		if err := os.Rename(g, to); err != nil {
			fmt.Fprintf(os.Stderr, "jp-policy: warning: the tool created %s and it could not be moved aside (%v): remove it before you run git there; git would run code from it as you\n", termstyle.Safe(g), err)
			continue
		}
		fmt.Fprintf(os.Stderr, "jp-policy: the tool created %s, which git would run code from as you; moved to %s (a tool cannot make a repository: run git init yourself, and exec keeps it read-only unless a rule names .git)\n", termstyle.Safe(g), termstyle.Safe(to))
	}
}
