package mount

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/jp-policy/jp-policy/internal/approvals"
	"github.com/jp-policy/jp-policy/internal/atomicfile"
	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// Files says where a mount records itself.
type Files struct {
	Config    string // config file the rules are appended to
	Approvals string // JP's approvals.json
}

// Result reports what Apply changed.
type Result struct {
	CreatedTarget bool
	CreatedLink   bool
	ApprovalSaved bool
	ConfigChanged bool
	Warnings      []diag.Diagnostic
}

// undo is a stack of compensating actions.
type undo []func() error

func (u *undo) push(f func() error) { *u = append(*u, f) }

// run undoes everything, newest first, and reports what could not be
// undone (the caller adds it to the error so nothing is left silently).
func (u undo) run() error {
	var errs []error
	for _, v := range slices.Backward(u) {
		if err := v(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Apply carries out a prepared plan as one transaction: the symlink, then
// the approval, then the config rules. When a step fails, the steps before
// it are undone; if an undo fails too, the error names what was left.
func Apply(p *Plan, env Env, files Files, now time.Time) (res Result, err error) {
	var u undo
	defer func() {
		if err == nil {
			return
		}
		if uerr := u.run(); uerr != nil {
			err = &Error{Kind: errKind(err), Err: err, Message: fmt.Sprintf("%v; undoing the partial mount also failed: %v", err, uerr)}
		}
		// Nothing was changed, but what was read is still worth saying.
		res = Result{Warnings: res.Warnings}
	}()

	if p.CreateTarget {
		if err := createTarget(p.Target, &u); err != nil {
			return res, err
		}
		res.CreatedTarget = true
	}
	if !p.LinkExists {
		if err := createLink(p, &u); err != nil {
			return res, err
		}
		res.CreatedLink = true
		if err := addExclude(env.Root, p.RulePath, &u); err != nil {
			return res, &Error{Kind: KindIO, Err: err, Message: fmt.Sprintf("cannot list mount %s in .git/info/exclude: %v", p.RulePath, err)}
		}
	}
	// The approval records what THE canonicalisation routine says the
	// link resolves to now, which is what the compiler will compare.
	// The link's directory is checked again too: if it was swapped for
	// a symlink since Prepare, the link may now sit outside.
	if err := p.checkParent(env.Root); err != nil {
		return res, err
	}
	r, cerr := policy.BindRule(env.Root, p.RulePath, true)
	if cerr != nil || r.Abs != p.Target {
		got := r.Abs
		if cerr != nil {
			got = cerr.Error()
		}
		return res, errorf(KindRetarget, "mount %s resolves to %s after creating it, not %s; refusing to approve it", p.RulePath, got, p.Target)
	}

	saved, warns, err := approve(p, env.Root, files.Approvals, now, &u)
	res.Warnings = warns
	if err != nil {
		return res, err
	}
	res.ApprovalSaved = saved

	if len(p.Blocks) > 0 {
		if err := appendRules(p, files.Config, &u); err != nil {
			return res, err
		}
		res.ConfigChanged = true
	}
	return res, nil
}

func errKind(err error) ErrorKind {
	if me, ok := errors.AsType[*Error](err); ok {
		return me.Kind
	}
	return KindIO
}

func createLink(p *Plan, u *undo) error {
	created, err := mkdirs(filepath.Dir(p.Link))
	if err != nil {
		return &Error{Kind: KindIO, Err: err, Message: fmt.Sprintf("cannot create the directories for mount %s: %v", p.RulePath, err)}
	}
	u.push(func() error { removeDirs(created); return nil })
	if err := os.Symlink(p.Target, p.Link); err != nil {
		return &Error{Kind: KindIO, Err: err, Message: fmt.Sprintf("cannot create symlink %s -> %s: %v", p.RulePath, p.Target, err)}
	}
	u.push(func() error { return os.Remove(p.Link) })
	return nil
}

// approve records the binding unless it is already there, and reports
// whether the store was written.
func approve(p *Plan, root, path string, now time.Time, u *undo) (bool, []diag.Diagnostic, error) {
	snap, err := takeSnapshot(path)
	if err != nil {
		return false, nil, &Error{Kind: KindIO, Err: err, Message: fmt.Sprintf("approvals store: %v", err)}
	}
	store, warns, err := approvals.Load(path)
	if err != nil {
		return false, nil, &Error{Kind: KindIO, Err: err, Message: err.Error()}
	}
	if st := store.Classify(p.RulePath, p.Target, root); st.Kind == approvals.Approved {
		return false, warns, nil
	}
	store.Approve(p.RulePath, p.Target, root, now)
	// Typing the mount is the user's approval (D43 "Effects of --mount"),
	// so a corrupt store may be replaced; the warning above says so.
	if err := store.Save(true); err != nil {
		return false, warns, &Error{Kind: KindIO, Err: err, Message: fmt.Sprintf("cannot record the approval: %v", err)}
	}
	u.push(snap.restore)
	return true, warns, nil
}

func appendRules(p *Plan, file string, u *undo) error {
	file = realPath(file)
	snap, err := takeSnapshot(file)
	if err != nil {
		return &Error{Kind: KindIO, Err: err, Message: fmt.Sprintf("config file: %v", err)}
	}
	if err := checkWritable(snap); err != nil {
		return &Error{Kind: KindIO, Err: err, Message: fmt.Sprintf("cannot write the mount rules: %v", err)}
	}
	out, err := AppendBlocks(file, snap.data, p.Blocks)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return &Error{Kind: KindIO, Err: err, Message: err.Error()}
	}
	if err := atomicfile.Write(file, out, snap.perm); err != nil {
		return &Error{Kind: KindIO, Err: err, Message: fmt.Sprintf("cannot write %s: %v", file, err)}
	}
	u.push(snap.restore)
	return nil
}

// createTarget creates a mount target that did not exist (and its missing
// parents) as private directories, and pushes their removal.
func createTarget(target string, u *undo) error {
	var made []string
	for d := target; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		made = append(made, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := os.MkdirAll(target, 0o700); err != nil {
		return &Error{Kind: KindIO, Err: err, Message: fmt.Sprintf("creating mount target %s: %v", target, err)}
	}
	u.push(func() error {
		for _, d := range made { // deepest first
			if err := os.Remove(d); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
		return nil
	})
	return nil
}
