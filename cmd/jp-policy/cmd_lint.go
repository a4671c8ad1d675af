package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jp-policy/jp-policy/internal/approvals"
	"github.com/jp-policy/jp-policy/internal/atomicfile"
	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/lint"
	"github.com/jp-policy/jp-policy/internal/lint/report"
)

// LintCmd checks the merged config for policy problems.
type LintCmd struct {
	Workspace string   `short:"w" help:"Workspace root (default: the nearest directory at or above the working directory that holds .jp/)." type:"path" placeholder:"DIR"`
	Cfg       []string `help:"Extra config applied last, read as JP reads --cfg: a file, a name in config_load_paths, @PATH, KEY=VALUE, KEY:=JSON or {JSON} (repeatable)." placeholder:"CFG" sep:"none"`
	Format    string   `help:"Output format: text, json (JSON Lines), sarif (SARIF 2.1.0) or github (Actions annotations)." enum:"text,json,sarif,github" default:"text"`
	Strict    bool     `help:"Exit 1 on warnings too."`
	Ignore    []string `help:"Drop findings of this rule ID (repeatable); rules that cannot be suppressed are refused." placeholder:"ID" completion:"rule"`
	Approvals string   `help:"Approvals store to check external rules against (default: JP's approvals.json for the workspace)." type:"path" placeholder:"FILE"`
	Quiet     bool     `short:"q" help:"Report only the findings that fail the run: errors, and warnings with --strict (and no line when there are none)."`
	Fix       bool     `help:"Apply the mechanical fixes (JP110, JP115, JP125) to the config files in the workspace, keeping comments and layout, then report what is left."`
	Portable  bool     `help:"Report the findings that depend on this machine's symlinks and approvals (JP105, JP106, JP124) as info, so CI and every developer get the same exit status."`
	// Conversations compares every stored conversation's policy with the
	// files' (JP131; lint_conversations.go).
	Conversations bool `help:"Also compile the policy JP applies when it continues each stored conversation (.jp/conversations and the user-workspace storage) and report every tool whose access differs from what the files grant now, widened or narrowed (JP131)."`
}

// Run loads the config, lints it and prints the findings.
func (c *LintCmd) Run(g *Globals) error {
	if err := requireWorkspace(c.Workspace, exitUsage); err != nil {
		return err
	}
	if err := lint.ValidateIgnore(c.Ignore); err != nil {
		return fail(exitUsage, err)
	}
	home, _ := os.UserHomeDir()
	cwd, err := os.Getwd()
	if err != nil {
		return fail(exitIntern, err)
	}
	l, err := config.Load(config.Options{Workspace: c.Workspace, Cwd: cwd, Cfg: c.Cfg})
	root, files := "", map[string][]byte(nil)
	if l != nil {
		root, files = l.Root, l.Files
	}
	ropts := lintReportOptions(g, g.Stdout, c.Format, root, files)
	if err != nil {
		if list, ok := errors.AsType[diag.List](err); ok {
			list = lint.WithHelp(list)
			// Machine formats still get a well-formed report on stdout, so a
			// CI upload shows the syntax error; people read it on stderr.
			if c.Format != "text" {
				_ = render(g.Stdout, c.Format, list, ropts)
			} else {
				ropts.Color = g.colorize(g.Stderr)
				_ = report.Text(g.Stderr, list, ropts)
			}
			return fail(exitUsage, nil)
		}
		return fail(exitUsage, err)
	}

	ds, err := c.run(l, home)
	if err != nil {
		return err
	}
	if c.Fix {
		fixed, err := c.fix(g, l, ds)
		if err != nil {
			return err
		}
		if fixed {
			// Report what is left, as ruff does: load and lint again.
			if l, err = config.Load(config.Options{Workspace: c.Workspace, Cwd: cwd, Cfg: c.Cfg}); err != nil {
				return fail(exitIntern, fmt.Errorf("the fixed config does not load (please report this): %w", err))
			}
			ropts.Files = l.Files
			if ds, err = c.run(l, home); err != nil {
				return err
			}
		}
	}
	if c.Conversations {
		found, files, err := conversationFindings(l, c.Workspace, c.Cfg, c.Approvals)
		if err != nil {
			return err
		}
		ds = append(ds, found...)
		diag.Sort(ds)
		for f, b := range files {
			if _, ok := ropts.Files[f]; !ok {
				if ropts.Files == nil {
					ropts.Files = map[string][]byte{}
				}
				ropts.Files[f] = b
			}
		}
	}
	if c.Portable {
		for i := range ds {
			if lint.PerMachine(ds[i].Rule) {
				ds[i].Severity = diag.Info
			}
		}
	}

	var failing []diag.Diagnostic
	for _, d := range ds {
		if d.Severity == diag.Error || (c.Strict && d.Severity == diag.Warning) {
			failing = append(failing, d)
		}
	}
	shown := ds
	if c.Quiet {
		shown = failing
	}
	if err := render(g.Stdout, c.Format, shown, ropts); err != nil {
		return fail(exitIntern, err)
	}
	if c.Format == "text" && len(shown) == 0 && !c.Quiet {
		// One line, so a clean run says what it checked (ruff, "All
		// checks passed!"); --quiet keeps it silent.
		fmt.Fprintf(g.Stdout, "no findings: %s, %s checked\n", plural(len(l.Files), "config file"), plural(localToolCount(l), "local tool"))
	}
	if len(failing) > 0 {
		return fail(exitFail, nil)
	}
	return nil
}

// plural is "1 word" or "n words".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// localToolCount is how many tools of the merged config run under an
// access policy (source local).
func localToolCount(l *config.Loaded) int {
	n := 0
	for _, t := range l.Tools {
		if src := strings.TrimSpace(t.Source.Value); src == "local" || strings.HasPrefix(src, "local.") {
			n++
		}
	}
	return n
}

// run lints a loaded config against the approvals store in use.
func (c *LintCmd) run(l *config.Loaded, home string) ([]diag.Diagnostic, error) {
	opts := lint.Options{Ignore: c.Ignore, Home: home, Getenv: os.Getenv}
	var extra []diag.Diagnostic
	var err error
	path := c.Approvals
	if path == "" {
		path, err = approvals.DefaultPath(l.Root, os.Getenv)
	}
	if err == nil && path != "" {
		store, ds, err := approvals.Load(path)
		if err != nil {
			return nil, fail(exitUsage, fmt.Errorf("approvals store: %w", err))
		}
		extra = ds
		opts.Approvals = store
		if c.Approvals != "" {
			opts.ApprovalsFile = path
		}
	}
	ds := append(lint.Run(l, opts), extra...)
	diag.Sort(ds)
	return ds, nil
}

// fix applies the findings' fixes to the files of the workspace (a global
// config or a --cfg file elsewhere is the user's, not the project's, and
// is left alone) and says on stderr what it changed. It reports whether
// any file was written.
func (c *LintCmd) fix(g *Globals, l *config.Loaded, ds []diag.Diagnostic) (bool, error) {
	var mine []diag.Diagnostic
	for _, d := range ds {
		if d.Fix != nil && len(d.Fix.Edits) > 0 && inDir(l.Root, d.Fix.Edits[0].Pos.File) {
			mine = append(mine, d)
		}
	}
	out, n := lint.ApplyFixes(l.Files, mine)
	names := make([]string, 0, len(out))
	for name := range out {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		perm := os.FileMode(0o644)
		if fi, err := os.Stat(name); err == nil {
			perm = fi.Mode().Perm()
		}
		if err := atomicfile.Write(name, out[name], perm); err != nil {
			return false, fail(exitIntern, fmt.Errorf("writing the fix: %w", err))
		}
	}
	if n > 0 {
		fmt.Fprintf(g.Stderr, "fixed %d finding(s) in %d file(s)\n", n, len(out))
	}
	return len(out) > 0, nil
}

// inDir reports whether file lies inside dir.
func inDir(dir, file string) bool {
	rel, err := filepath.Rel(dir, file)
	return err == nil && dir != "" && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// lintReportOptions: text and JSON name files relative to the working
// directory, like every other command; SARIF and GitHub annotations name
// them relative to the repository root, which code scanning and the
// Actions UI resolve them against, so they land on the right file when the
// workspace is a sub-directory of the repository.
func lintReportOptions(g *Globals, w io.Writer, format, root string, files map[string][]byte) report.Options {
	o := findingOptions(g, w, root, files)
	if format == "sarif" || format == "github" {
		start := root
		if start == "" {
			start = o.Base
		}
		o.Base = report.RepoRoot(start)
	}
	return o
}

func render(w io.Writer, format string, ds []diag.Diagnostic, o report.Options) error {
	switch format {
	case "json":
		return report.JSON(w, ds, o)
	case "sarif":
		return report.SARIF(w, ds, o)
	case "github":
		return report.GitHub(w, ds, o)
	}
	return report.Text(w, ds, o)
}
