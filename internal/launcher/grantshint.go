package launcher

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jp-policy/jp-policy/internal/denyhint"
	"github.com/jp-policy/jp-policy/internal/plan/landlock"
	"github.com/jp-policy/jp-policy/internal/shquote"
)

// grantHint explains a program the tool's Linux grants cannot run: the
// program (as found and as its symlinks resolve) or its script
// interpreter lies outside every rule with execute, so the sandbox will
// deny it (EACCES on the fast path, "not found" in the namespaced root,
// where the file is not there at all). It returns "" when every one of
// them is covered or the plan has no Linux manifest.
//
// It is advice for a failure, never a decision: the kernel decides, and
// the launcher only adds this text to the error it reports, so a mistake
// here cannot refuse a run the sandbox would allow. It is computed after
// the failure, off the hot path.
func (p *Plan) grantHint() string {
	if p.Manifest == nil || p.Path == "" {
		return ""
	}
	out := outsideExecGrants(p.Manifest, p.Path)
	if len(out) == 0 {
		return ""
	}
	what := out[0]
	if abs, err := filepath.Abs(p.Path); what != p.Path && (err != nil || what != abs) {
		what = fmt.Sprintf("%s (for %s)", what, p.Path)
	}
	root := p.Manifest.Root
	if root != "" && (out[0] == root || strings.HasPrefix(out[0], root+string(filepath.Separator))) {
		return fmt.Sprintf("hint: %s is inside the workspace but no fs rule of tool %q grants execute on it; add `execute = true` to the rule that covers it in [[%s]], then `jp-policy compile`", what, p.Tool, denyhint.AccessKey(p.Tool, "fs"))
	}
	dir := toolchainRoot(out[0])
	name := strings.TrimPrefix(filepath.Base(dir), ".")
	if name == "" || name == string(filepath.Separator) {
		name = "toolchain"
	}
	spec := shquote.Quote(fmt.Sprintf("%s:%s=%s:rx", p.Tool, name, tildeHome(dir)))
	return fmt.Sprintf("hint: %s is outside tool %q's grants, so the sandbox cannot run it; grant its toolchain read-only with execute:\n  jp-policy mount %s && jp-policy compile\n(README, \"Toolchains outside the workspace\": rustup and pyenv need more than one directory)", what, p.Tool, spec)
}

// outsideExecGrants lists, in order and without repeats, the paths among
// path, its resolved target and its `#!` interpreter (with `env NAME`
// looked up on PATH) that no grant of m allows to execute.
func outsideExecGrants(m *landlock.Manifest, path string) []string {
	// The program as found may be relative (./scripts/deploy.sh, found
	// in the working directory); the grants are absolute. Compared as
	// typed, a script inside a granted directory read as "outside".
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	cands := []string{path}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		cands = append(cands, real)
	}
	if interp := interpreter(cands[len(cands)-1]); interp != "" {
		cands = append(cands, interp)
		if real, err := filepath.EvalSymlinks(interp); err == nil {
			cands = append(cands, real)
		}
	}
	var out []string
	for _, c := range cands {
		if !canExecute(m, c) && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// canExecute reports whether a grant of m (the tool's rules, the
// baseline, or the masked variant) gives execute on p: Landlock's rights
// on a directory reach everything beneath it, so any rule on p or an
// ancestor with execute allows it.
func canExecute(m *landlock.Manifest, p string) bool {
	for _, rules := range [][]landlock.PathRule{m.FS, m.Baseline, m.MaskedFS} {
		for _, r := range rules {
			if (p == r.Path || strings.HasPrefix(p, strings.TrimSuffix(r.Path, "/")+"/")) && slices.Contains(r.Access, landlock.Execute) {
				return true
			}
		}
	}
	return false
}

// interpreter is the program a `#!` line names ("" when there is none or
// the file cannot be read); for `#!/usr/bin/env NAME` it is NAME as found
// on PATH, which is what the kernel ends up running.
func interpreter(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 256)
	n, _ := f.Read(buf)
	line, _, _ := bytes.Cut(buf[:n], []byte("\n"))
	rest, ok := bytes.CutPrefix(line, []byte("#!"))
	if !ok {
		return ""
	}
	fields := strings.Fields(string(rest))
	if len(fields) == 0 {
		return ""
	}
	if filepath.Base(fields[0]) == "env" {
		for _, a := range fields[1:] {
			if strings.HasPrefix(a, "-") || strings.Contains(a, "=") {
				continue
			}
			if found, err := lookPath(a); err == nil {
				return found
			}
			return ""
		}
	}
	return fields[0]
}

// toolchainRoot is the directory to grant for a program outside the
// workspace: the parent of its bin/ directory (~/.cargo for
// ~/.cargo/bin/cargo, ~/.pyenv for ~/.pyenv/shims/python's versions),
// else the directory holding it.
func toolchainRoot(p string) string {
	dir := filepath.Dir(p)
	if b := filepath.Base(dir); b == "bin" || b == "shims" {
		return filepath.Dir(dir)
	}
	return dir
}

// tildeHome writes p with ~ for the home directory, as a user types it.
func tildeHome(p string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || home == "/" {
		return p
	}
	if p == home {
		return "~"
	}
	if rest, ok := strings.CutPrefix(p, home+string(filepath.Separator)); ok {
		return "~/" + rest
	}
	return p
}
