package mount

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/jp-policy/jp-policy/internal/approvals"
	"github.com/jp-policy/jp-policy/internal/atomicfile"
	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// UnmountResult reports what Unmount removed.
type UnmountResult struct {
	RulePaths []string // mounts handled, sorted
	Blocks    []Found  // config blocks removed
	Links     []string // symlinks removed (rule paths)
	Revoked   []string // approvals withdrawn (rule paths)
	Dirs      []string // empty directories removed above the links (workspace-relative, slash-separated)
	Warnings  []diag.Diagnostic
}

// Unmount removes the mount at name (resolved like a mount NAME), or every
// mount this tool wrote into files.Config when name is "": the marker
// blocks (and a tool's workspace-default block once its last mount is
// gone), the symlink, and the approval. Rules without a marker, other
// layers and all other text are left as they are. Like Apply it is one
// transaction.
func Unmount(name string, env Env, files Files) (res UnmountResult, err error) {
	cfgPath := realPath(files.Config)
	snap, err := takeSnapshot(cfgPath)
	if err != nil {
		return res, &Error{Kind: KindIO, Err: err, Message: fmt.Sprintf("config file: %v", err)}
	}
	all := FindBlocks(snap.data)

	targets := map[string]bool{}
	if name != "" {
		rp, err := ResolveName(name, env.Cwd, env.Root)
		if err != nil {
			return res, err
		}
		targets[rp] = true
	} else {
		for _, b := range all {
			if !b.Default {
				targets[b.RulePath] = true
			}
		}
	}
	remove := selectBlocks(all, targets)

	store, warns, err := approvals.Load(files.Approvals)
	if err != nil {
		return res, &Error{Kind: KindIO, Err: err, Message: err.Error()}
	}
	res.Warnings = warns

	links := map[string]string{} // rule path -> absolute link
	for rp := range targets {
		if l, ok := mountLink(env.Root, rp); ok {
			links[rp] = l
		}
	}
	var revoke []string
	for rp := range targets {
		if _, ok := store.Lookup(rp); ok {
			revoke = append(revoke, rp)
		}
	}
	if len(remove) == 0 && len(links) == 0 && len(revoke) == 0 {
		if name == "" {
			return res, errorf(KindConfig, "no mounts found in %s", cfgPath)
		}
		return res, errorf(KindConfig, "no mount at %s: no marker block in %s, no symlink, no approval", strings.Join(keys(targets), ", "), cfgPath)
	}

	var u undo
	defer func() {
		if err == nil {
			return
		}
		if uerr := u.run(); uerr != nil {
			err = &Error{Kind: errKind(err), Err: err, Message: fmt.Sprintf("%v; undoing the partial unmount also failed: %v", err, uerr)}
		}
		res = UnmountResult{}
	}()

	if len(remove) > 0 {
		if err := checkWritable(snap); err != nil {
			return res, &Error{Kind: KindIO, Err: err, Message: fmt.Sprintf("cannot remove the mount rules: %v", err)}
		}
		if err := atomicfile.Write(cfgPath, RemoveBlocks(snap.data, remove), snap.perm); err != nil {
			return res, &Error{Kind: KindIO, Err: err, Message: fmt.Sprintf("cannot write %s: %v", cfgPath, err)}
		}
		u.push(snap.restore)
		sort.Slice(remove, func(i, j int) bool { return remove[i].Line < remove[j].Line })
		res.Blocks = remove
	}
	if len(revoke) > 0 {
		asnap, err := takeSnapshot(files.Approvals)
		if err != nil {
			return res, &Error{Kind: KindIO, Err: err, Message: fmt.Sprintf("approvals store: %v", err)}
		}
		kept := revoke[:0]
		for _, rp := range revoke {
			// An approval given only in other workspaces that share this
			// one's id stays theirs.
			if ok, _ := store.Revoke(rp, env.Root); ok {
				kept = append(kept, rp)
			}
		}
		revoke = kept
		if err := store.Save(false); err != nil {
			return res, &Error{Kind: KindIO, Err: err, Message: fmt.Sprintf("cannot withdraw the approval: %v", err)}
		}
		u.push(asnap.restore)
		sort.Strings(revoke)
		res.Revoked = revoke
	}
	for _, rp := range sortedKeys(links) {
		link := links[rp]
		dest, err := os.Readlink(link)
		if err != nil {
			return res, &Error{Kind: KindIO, Err: err, Message: err.Error()}
		}
		if err := os.Remove(link); err != nil {
			return res, &Error{Kind: KindIO, Err: err, Message: fmt.Sprintf("cannot remove symlink %s: %v", rp, err)}
		}
		u.push(func() error { return os.Symlink(dest, link) })
		res.Links = append(res.Links, rp)
		// Best effort: a line left in .git/info/exclude hides nothing
		// that exists.
		_ = removeExclude(env.Root, rp)
		// mount created the directories a nested link sits in
		// (vendor/ for vendor/yaml); once empty they go with it.
		gone := removeEmptyParents(filepath.Dir(link), env.Root)
		u.push(func() error { return recreateDirs(gone) })
		for _, d := range gone {
			if rel, err := filepath.Rel(env.Root, d); err == nil {
				res.Dirs = append(res.Dirs, filepath.ToSlash(rel))
			}
		}
	}
	res.RulePaths = keys(targets)
	return res, nil
}

// selectBlocks picks the mount blocks of the target rule paths, plus the
// workspace-default block of every tool left with no mount block (the
// default rule only existed to keep that tool's access while it had one).
func selectBlocks(all []Found, targets map[string]bool) []Found {
	remaining := map[string]int{}
	var out []Found
	for _, b := range all {
		switch {
		case b.Default:
		case targets[b.RulePath]:
			out = append(out, b)
		default:
			remaining[b.Tool]++
		}
	}
	touched := map[string]bool{}
	for _, b := range out {
		touched[b.Tool] = true
	}
	for _, b := range all {
		if b.Default && touched[b.Tool] && remaining[b.Tool] == 0 {
			out = append(out, b)
		}
	}
	return out
}

// mountLink returns the absolute path of the symlink at rulePath when
// there is one and its directory lies inside the workspace.
func mountLink(root, rulePath string) (string, bool) {
	parent := path.Dir(rulePath)
	if parent == "." {
		parent = ""
	}
	pr, err := policy.Canonicalize(root, parent)
	if err != nil || !pr.Inside || !pr.Exists {
		return "", false
	}
	link := filepath.Join(pr.Abs, path.Base(rulePath))
	fi, err := os.Lstat(link)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return "", false
	}
	return link, true
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// removeEmptyParents removes dir and its ancestors while they are empty,
// stopping at root (never removed), and returns what it removed, deepest
// first. A directory holding anything stays, and so do its ancestors.
func removeEmptyParents(dir, root string) []string {
	var gone []string
	root = filepath.Clean(root)
	for d := filepath.Clean(dir); d != root && strings.HasPrefix(d, root+string(filepath.Separator)); d = filepath.Dir(d) {
		if os.Remove(d) != nil {
			break
		}
		gone = append(gone, d)
	}
	return gone
}

// recreateDirs undoes removeEmptyParents.
func recreateDirs(gone []string) error {
	for _, g := range slices.Backward(gone) {
		if err := os.Mkdir(g, 0o755); err != nil && !os.IsExist(err) {
			return err
		}
	}
	return nil
}
