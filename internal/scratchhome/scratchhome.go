package scratchhome

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// Dir is the name of the scratch home inside the run's TMPDIR.
const Dir = ".home"

// Link is a symbolic link to create in the scratch home: Rel, relative to
// it, points at Target, the real path a grant names.
type Link struct {
	Rel, Target string
}

// Plan returns the links that make the grants under realHome appear in
// the scratch home, shallowest first (a grant beneath another linked one
// is reached through its ancestor's link), and keep = true when a grant
// is realHome or one of its ancestors, so the run keeps the real HOME.
// realHome and grants are absolute, clean paths; realHome "" (no HOME
// passed) or "/" keeps HOME as it is.
func Plan(realHome string, grants []string) (links []Link, keep bool) {
	if realHome == "" || realHome == "/" || !filepath.IsAbs(realHome) {
		return nil, true
	}
	realHome = filepath.Clean(realHome)
	var under []string
	for _, g := range grants {
		g = filepath.Clean(g)
		if policy.Within(realHome, g) {
			return nil, true
		}
		if policy.Within(g, realHome) {
			under = append(under, g)
		}
	}
	slices.Sort(under)
	under = slices.Compact(under)
	for _, g := range under {
		if len(links) > 0 && policy.Within(g, links[len(links)-1].Target) {
			continue // sorted: an ancestor link sorts right before
		}
		rel, _ := filepath.Rel(realHome, g)
		links = append(links, Link{Rel: rel, Target: g})
	}
	return links, false
}

// Make creates the scratch home dir (mode 0700; it may exist already) and
// the links in it, with the directories leading to them.
func Make(dir string, links []Link) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
		return err
	}
	for _, l := range links {
		p := filepath.Join(dir, l.Rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		if err := os.Symlink(l.Target, p); err != nil && !os.IsExist(err) {
			return err
		}
	}
	return nil
}

// Home is the value of HOME in env ("" when it is not set).
func Home(env []string) string {
	for _, kv := range slices.Backward(env) {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			return v
		}
	}
	return ""
}
