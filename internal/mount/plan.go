package mount

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/jp-policy/jp-policy/internal/jpdirs"

	"github.com/jp-policy/jp-policy/internal/policy"
)

// Env is where a mount happens.
type Env struct {
	Root string // canonical absolute workspace root
	Cwd  string // absolute working directory NAME is relative to
	Home string // for `~` in PATH; "" leaves `~` unexpandable
}

// Plan is everything a mount will do, computed without changing anything.
// Fields are filled in order; when Prepare fails, the ones before the
// failing step are set (dry-run prints them next to the error).
type Plan struct {
	Spec     Spec
	RulePath string // workspace-relative link (the rule path); "" until resolved
	Link     string // absolute path of the symlink
	Target   string // canonical absolute target; "" until resolved
	// LinkExists: the symlink is already there and resolves to Target.
	LinkExists bool
	// CreateTarget: Target does not exist yet (a cache on a fresh
	// machine: ~/.npm); Apply creates it as a directory, mode 0700, and
	// its missing parents. Target is then its canonical parent joined
	// with the missing names.
	CreateTarget bool
	Tools        []string          // tools in scope
	Rules        map[string][]Rule // rules to append, per tool
	// Skipped names tools in scope that already have a rule for the
	// mount path (where), left unchanged.
	Skipped map[string]string
	Blocks  []Block // Rules in write order
}

// NeedsConfirmation: a mount that names no tool grants every enabled local
// tool, and D43 asks the user to confirm that scope.
func (p *Plan) NeedsConfirmation() bool { return p.Spec.Tool == "" }

// Prepare parses spec and checks every precondition of the mount against
// the filesystem and the merged tools, without changing anything.
func Prepare(spec string, tools []ToolInfo, env Env) (*Plan, error) {
	sp, err := Parse(spec)
	if err != nil {
		return nil, err
	}
	p := &Plan{Spec: sp}
	if p.RulePath, err = ResolveName(sp.Name, env.Cwd, env.Root); err != nil {
		return p, err
	}
	if p.Target, p.CreateTarget, err = resolveTarget(sp.Path, env); err != nil {
		return p, err
	}
	if err := p.checkCreate(env); err != nil {
		return p, err
	}
	if err := p.checkLink(env.Root); err != nil {
		return p, err
	}
	if err := p.scope(tools); err != nil {
		return p, err
	}
	return p, nil
}

// resolveTarget expands `~`, makes PATH absolute against the working
// directory and resolves it through symlinks. A target inside the
// workspace is refused: D43's `external = true` is rejected on rules that
// resolve inside, and an in-workspace path needs no mount.
func resolveTarget(p string, env Env) (canon string, missing bool, err error) {
	expanded, err := jpdirs.ExpandHome(p, env.Home)
	if err != nil {
		return "", false, errorf(KindTargetMissing, "mount target %q: %v", p, err)
	}
	if !filepath.IsAbs(expanded) {
		expanded = filepath.Join(env.Cwd, expanded)
	}
	canon, missing, err = evalMissing(filepath.Clean(expanded))
	if err != nil {
		return "", false, &Error{Kind: KindTargetMissing, Err: err, Message: fmt.Sprintf("mount target %s cannot be resolved: %v", p, unwrapPathError(err))}
	}
	if canon, err = filepath.Abs(canon); err != nil {
		return "", false, &Error{Kind: KindTargetMissing, Err: err, Message: err.Error()}
	}
	if rel, err := filepath.Rel(env.Root, canon); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
		return canon, missing, errorf(KindTargetInsideWorkspace, "mount target %s is inside the workspace (%s); mounts are for paths outside it", p, filepath.ToSlash(rel))
	}
	return canon, missing, nil
}

// checkCreate refuses to create, for a writable mount, a missing target
// that is or holds a protected path: a start-up file made a directory
// breaks the shell, and a created ~/.ssh or ~/.local/bin is one the
// write mount would then fill. Those the user makes, if at all.
func (p *Plan) checkCreate(env Env) error {
	if !p.CreateTarget || !p.Spec.Mode.Writes() {
		return nil
	}
	// p.Target is canonical: compare it with the protected paths made
	// canonical by the one routine (policy's WriteTargets, as compile
	// protects them), where a path that cannot be resolved stays as
	// written, so a home behind a symlink still matches.
	sc := policy.NewStatCache()
	for _, pp := range jpdirs.ProtectedPaths(env.Root, nil) {
		for _, t := range sc.WriteTargets(pp.Path) {
			if policy.Within(p.Target, t) || policy.Within(t, p.Target) {
				return errorf(KindTargetMissing, "mount target %s does not exist, and jp-policy does not create it for a writable mount: %s is a protected path (%s); create it yourself if you mean to mount it", p.Spec.Path, t, pp.What)
			}
		}
	}
	return nil
}

// evalMissing resolves p through symlinks; when p does not exist, it
// resolves the deepest ancestor that does and joins the missing names to
// it (missing = true). A dangling symlink on the way is an error: where
// it points is not a directory mount should create.
func evalMissing(p string) (string, bool, error) {
	canon, err := filepath.EvalSymlinks(p)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return canon, false, err
	}
	var tail []string
	dir := p
	for {
		if _, lerr := os.Lstat(dir); lerr == nil {
			break
		} else if !errors.Is(lerr, fs.ErrNotExist) {
			return "", false, lerr
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false, err
		}
		tail = append([]string{filepath.Base(dir)}, tail...)
		dir = parent
	}
	base, berr := filepath.EvalSymlinks(dir)
	if berr != nil {
		return "", false, berr
	}
	if st, serr := os.Stat(base); serr != nil || !st.IsDir() {
		return "", false, err
	}
	return filepath.Join(append([]string{base}, tail...)...), true, nil
}

func unwrapPathError(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}

// checkLink decides what is at NAME. Nothing: the link will be created
// (its parent must resolve inside the workspace and outside .jp/, so a
// symlinked directory cannot carry the link elsewhere). A symlink that
// already resolves to the target: nothing to do. Anything else: an error
// before any change.
func (p *Plan) checkLink(root string) error {
	if err := p.checkParent(root); err != nil {
		return err
	}
	fi, err := os.Lstat(p.Link)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return &Error{Kind: KindInTheWay, Err: err, Message: fmt.Sprintf("cannot inspect %s: %v", p.RulePath, err)}
	case fi.Mode()&fs.ModeSymlink == 0:
		return errorf(KindInTheWay, "cannot create mount %s: a %s is already there (only a symlink can be a mount)", p.RulePath, kindOf(fi))
	}
	r, err := policy.Canonicalize(root, p.RulePath)
	if err == nil && r.Abs == p.Target {
		p.LinkExists = true
		return nil
	}
	now := "a missing target"
	if err == nil {
		now = r.Abs
	} else if dest, rerr := os.Readlink(p.Link); rerr == nil {
		now = dest + " (dangling)"
	}
	return errorf(KindRetarget, "mount %s already exists and points to %s, not %s; run `jp-policy unmount %s` first", p.RulePath, now, p.Target, p.RulePath)
}

// checkParent resolves the link's directory (which must lie inside the
// workspace and outside .jp/, and be a directory where it exists) and
// sets Link.
func (p *Plan) checkParent(root string) error {
	parent := path.Dir(p.RulePath)
	if parent == "." {
		parent = ""
	}
	pr, err := policy.Canonicalize(root, parent)
	if err != nil {
		return &Error{Kind: KindInTheWay, Err: err, Message: fmt.Sprintf("cannot place mount %s: %v", p.RulePath, err)}
	}
	if !pr.Inside {
		return errorf(KindOutsideWorkspace, "mount %s: its parent directory resolves outside the workspace (%s)", p.RulePath, pr.Abs)
	}
	if first, _, _ := strings.Cut(pr.Rel, "/"); strings.EqualFold(first, ManagedDir) {
		return errorf(KindManagedStorage, "mount %s: its parent directory resolves into JP-managed storage (%s/)", p.RulePath, ManagedDir)
	}
	if pr.Exists {
		if fi, err := os.Stat(pr.Abs); err != nil || !fi.IsDir() {
			return errorf(KindInTheWay, "cannot create mount %s: %s is not a directory", p.RulePath, parentOr(parent))
		}
	} else if err := noFileOnTheWay(root, parent); err != nil {
		return err
	}
	link := filepath.Join(pr.Abs, path.Base(p.RulePath))
	if p.Link != "" && p.Link != link {
		return errorf(KindOutsideWorkspace, "mount %s: its directory changed while mounting", p.RulePath)
	}
	p.Link = link
	return nil
}

// noFileOnTheWay walks the parent's components and fails on the first one
// that exists but is not a directory.
func noFileOnTheWay(root, parent string) error {
	cur := ""
	for c := range strings.SplitSeq(parent, "/") {
		cur = path.Join(cur, c)
		r, err := policy.Canonicalize(root, cur)
		if err != nil {
			return &Error{Kind: KindInTheWay, Err: err, Message: fmt.Sprintf("cannot place mount under %s: %v", cur, err)}
		}
		if !r.Exists {
			return nil
		}
		if fi, err := os.Stat(r.Abs); err != nil || !fi.IsDir() {
			return errorf(KindInTheWay, "cannot create mount under %s: it is not a directory", cur)
		}
	}
	return nil
}

func parentOr(p string) string {
	if p == "" {
		return "the workspace root"
	}
	return p
}

func kindOf(fi fs.FileInfo) string {
	if fi.IsDir() {
		return "directory"
	}
	return "file"
}

// scope picks the tools and the rules each gets.
func (p *Plan) scope(tools []ToolInfo) error {
	byName := map[string]ToolInfo{}
	for _, t := range tools {
		byName[t.Name] = t
	}
	var inScope []ToolInfo
	if p.Spec.Tool != "" {
		t, ok := byName[p.Spec.Tool]
		if !ok {
			msg := fmt.Sprintf("no tool named %q is configured", p.Spec.Tool)
			if s := suggestTool(p.Spec.Tool, tools); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			return errorf(KindUnknownTool, "%s", msg)
		}
		if !t.Local {
			return errorf(KindNotLocalTool, "tool %q has source %q; access grants apply only to local tools", t.Name, t.Source)
		}
		inScope = []ToolInfo{t}
	} else {
		for _, t := range tools {
			if t.Local && t.Enabled {
				inScope = append(inScope, t)
			}
		}
		if len(inScope) == 0 {
			return errorf(KindNoTools, "no enabled local tool to mount %s for; name one with TOOL:%s=...", p.RulePath, p.Spec.Name)
		}
	}
	p.Rules, p.Skipped = map[string][]Rule{}, map[string]string{}
	for _, t := range inScope {
		p.Tools = append(p.Tools, t.Name)
		if at, ok := hasRuleFor(t, p.RulePath); ok {
			p.Skipped[t.Name] = at
			continue
		}
		var rules []Rule
		if len(t.FS) == 0 {
			rules = append(rules, WorkspaceDefaultRule())
		}
		rules = append(rules, MountRule(p.RulePath, p.Spec.Mode))
		p.Rules[t.Name] = rules
		for _, r := range rules {
			p.Blocks = append(p.Blocks, Block{Tool: t.Name, Rule: r})
		}
	}
	sort.Strings(p.Tools)
	return nil
}

// hasRuleFor reports where t already has a rule for rulePath, if it does.
func hasRuleFor(t ToolInfo, rulePath string) (string, bool) {
	for _, r := range t.FS {
		if r.Lexical == rulePath {
			return r.Pos.String(), true
		}
	}
	return "", false
}
