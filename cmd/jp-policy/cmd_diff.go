package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/compiler"
	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/gitsnap"
	"github.com/jp-policy/jp-policy/internal/grantdiff"
	"github.com/jp-policy/jp-policy/internal/jpdirs"
	"github.com/jp-policy/jp-policy/internal/termstyle"
)

// DiffCmd is `jp-policy diff`: the grant-level difference between two
// compiled policies. Exit 0: nothing widened; 1: something widened; 2:
// an error.
type DiffCmd struct {
	Workspace string   `short:"w" help:"Workspace root (default: the nearest directory at or above the working directory that holds .jp/)." type:"path" placeholder:"DIR"`
	Cfg       []string `help:"Extra config applied last to every side compiled from config, read as JP reads --cfg (repeatable)." placeholder:"CFG" sep:"none"`
	Out       string   `help:"Output directory of the pinned artifact to compare with (default: <workspace>/.jp/policy)." type:"path" placeholder:"DIR"`
	Old       string   `help:"Compare this compiled policy.json ..." type:"path" placeholder:"FILE" and:"files" xor:"old,from"`
	New       string   `help:"... with this one." type:"path" placeholder:"FILE" and:"files" xor:"new,to"`
	From      string   `help:"Compare the workspace's config at this git revision ..." placeholder:"REV" xor:"old,from"`
	To        string   `help:"... with the config at this revision (default: the working tree)." placeholder:"REV" xor:"new,to"`
	Format    string   `help:"Output format: text, json or markdown." enum:"text,json,markdown" default:"text"`
	Quiet     bool     `short:"q" help:"Print nothing; the exit status says whether a grant widened."`
}

// Run compares the chosen sides and prints the diff.
func (c *DiffCmd) Run(g *Globals) error {
	if c.To != "" && c.From == "" {
		return fail(exitUsage, errors.New("--to needs --from"))
	}
	old, new, err := c.sides(g)
	if err != nil {
		return err
	}
	d, err := grantdiff.Compare(old, new)
	if err != nil {
		return fail(exitUsage, err)
	}
	if !c.Quiet {
		if err := grantdiff.Write(g.Stdout, d, c.Format); err != nil {
			return fail(exitUsage, err)
		}
	}
	if d.Widened() {
		return fail(exitFail, nil)
	}
	return nil
}

// sides loads the two artifacts to compare.
func (c *DiffCmd) sides(g *Globals) (*artifact.Policy, *artifact.Policy, error) {
	switch {
	case c.Old != "":
		old, err := artifact.Read(c.Old)
		if err != nil {
			return nil, nil, fail(exitUsage, err)
		}
		new, err := artifact.Read(c.New)
		if err != nil {
			return nil, nil, fail(exitUsage, err)
		}
		return old, new, nil
	case c.From != "":
		old, err := c.atRevision(g, c.From)
		if err != nil {
			return nil, nil, err
		}
		if c.To == "" {
			res, err := compiler.Build(compiler.Options{Config: configOptions(c.Workspace, c.Cfg), GrantsOnly: true})
			if err != nil {
				return nil, nil, diffCompileError(g, err)
			}
			return old, res.Artifact, nil
		}
		new, err := c.atRevision(g, c.To)
		return old, new, err
	}
	// Grants only: diff compares what each tool is granted, never the
	// manifests, which are most of a compile's cost.
	opts := compiler.Options{Config: configOptions(c.Workspace, c.Cfg), OutDir: c.Out, GrantsOnly: true}
	res, err := compiler.Build(opts)
	if err != nil {
		return nil, nil, diffCompileError(g, err)
	}
	old, err := compiler.Reviewed(opts, res.Root)
	var lost *artifact.ReviewLostError
	switch {
	case errors.Is(err, artifact.ErrNoReview):
		return nil, nil, fail(exitUsage, fmt.Errorf("nothing to compare with: no policy was compiled and pinned for %s yet; run `jp-policy compile`, or compare revisions with --from", res.Root))
	case errors.As(err, &lost):
		fmt.Fprintf(g.Stderr, "jp-policy: warning: %v\n", err)
	case err != nil:
		return nil, nil, fail(exitUsage, err)
	}
	return old, res.Artifact, nil
}

// atRevision compiles, in memory, the workspace's config as committed at
// rev.
func (c *DiffCmd) atRevision(g *Globals, rev string) (*artifact.Policy, error) {
	wd, _ := os.Getwd()
	ws := c.Workspace
	if ws == "" {
		root, err := jpdirs.FindRoot(wd)
		if err != nil {
			return nil, fail(exitUsage, err)
		}
		ws = root
	}
	snap, err := gitsnap.Take(ws, rev)
	if err != nil {
		return nil, fail(exitUsage, err)
	}
	defer snap.Remove()
	// The same working directory inside the snapshot, so the .jp.toml
	// chain JP would load from here is the one compared.
	opts := configOptions(snap.Workspace, c.Cfg)
	if realWS, err := filepath.EvalSymlinks(ws); err == nil {
		if realWD, err := filepath.EvalSymlinks(wd); err == nil {
			if rel, err := filepath.Rel(realWS, realWD); err == nil && filepath.IsLocal(rel) {
				if fi, err := os.Stat(filepath.Join(snap.Workspace, rel)); err == nil && fi.IsDir() {
					opts.Cwd = filepath.Join(snap.Workspace, rel)
				}
			}
		}
	}
	if opts.Cwd == wd {
		opts.Cwd = snap.Workspace
	}
	res, err := compiler.Build(compiler.Options{Config: opts, GrantsOnly: true})
	if err != nil {
		fmt.Fprintf(g.Stderr, "jp-policy: compiling the config at %s:\n", termstyle.Safe(rev))
		return nil, diffCompileError(g, atRevisionNames(err, snap.Dir, rev))
	}
	return res.Artifact, nil
}

// diffCompileError is compileError with diff's exit code: a side that
// cannot be compiled is an error (2), never "widened" (1), so a CI job
// that fails on a widening does not report one for a broken config.
func diffCompileError(g *Globals, err error) error {
	err = compileError(g, err)
	if e, ok := errors.AsType[*exitError](err); ok {
		e.Code = exitUsage
	}
	return err
}

// atRevisionNames names the files of a snapshot's findings as git does,
// REV:path from the repository's top level, instead of by the temporary
// checkout, which is gone by the time the user reads them.
func atRevisionNames(err error, dir, rev string) error {
	name := func(file string) string {
		if rel, rerr := filepath.Rel(dir, file); rerr == nil && filepath.IsLocal(rel) {
			return rev + ":" + filepath.ToSlash(rel)
		}
		return file
	}
	relabel := func(ds []diag.Diagnostic) {
		for i := range ds {
			ds[i].Pos.File = name(ds[i].Pos.File)
			for j := range ds[i].Related {
				ds[i].Related[j].Pos.File = name(ds[i].Related[j].Pos.File)
			}
			ds[i].Fix = nil // an edit of a file that no longer exists
		}
	}
	files := func(m map[string][]byte) map[string][]byte {
		out := make(map[string][]byte, len(m))
		for f, b := range m {
			out[name(f)] = b
		}
		return out
	}
	if le, ok := errors.AsType[*compiler.LintError](err); ok {
		relabel(le.Diagnostics)
		le.Files = files(le.Files)
		le.Root = ""
		return le
	}
	if dl, ok := errors.AsType[diag.List](err); ok {
		relabel(dl)
		return dl
	}
	if strings.Contains(err.Error(), dir) {
		return errors.New(strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), rev+":"))
	}
	return err
}
