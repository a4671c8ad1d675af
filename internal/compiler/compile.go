package compiler

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/jp-policy/jp-policy/internal/approvals"
	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/platform"

	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/emit"
	"github.com/jp-policy/jp-policy/internal/emit/sbpl"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// Options configure one compilation.
type Options struct {
	Config config.Options
	// OutDir is where the artifact goes; "" means <root>/.jp/policy.
	OutDir string
	// ApprovalsFile overrides JP's approvals.json location.
	ApprovalsFile string
	// Prompter asks the user to approve external targets; nil means no
	// terminal (or --no-input): unapproved rules are dropped with a
	// warning, never approved silently.
	Prompter Prompter
	// Now stamps new approvals; nil means time.Now.
	Now func() time.Time
	// Generator is recorded in the artifact ("jp-policy 0.1.0").
	Generator string
	// Only, when set, limits a Build to these tools: the config is
	// loaded and linted whole (a question about one tool still needs a
	// config that compiles), but only these tools are bound and emitted,
	// so one question about one tool costs what that tool costs, not
	// the workspace (check, explain --tool). The result's Artifact holds
	// only them and its digest covers only their inputs: it is never
	// written (Compile and Rebuild ignore Only).
	Only []string
	// GrantsOnly, when set, stops a Build once every tool's grants are
	// decided: no manifests, exec plans or policy.json are built, which
	// is most of a compile's cost. For diff, which compares grants only
	// (Compile and Rebuild ignore it).
	GrantsOnly bool
	// Progress, when set, is told each stage of the compile as it starts
	// ("checking", "binding", "writing") and, while writing, how many of
	// the tools are done; compile on a terminal shows it as one line.
	Progress func(stage string, done, total int)

	prepareOut bool   // set by Compile and Rebuild: create OutDir before building
	stream     bool   // set by Compile: write the files as they are emitted
	stage      *stage // where they are written (set by Build)
}

// lookupEnv is os.LookupEnv, or getenv's non-empty answer when a test
// injects one: exec tells a variable set to "" from an unset one, and the
// "env" inputs must say what it will find.
func (o *Options) lookupEnv(key string) (string, bool) {
	if o.Config.Getenv != nil {
		v := o.Config.Getenv(key)
		return v, v != ""
	}
	return os.LookupEnv(key)
}

func (o *Options) progress(stage string, done, total int) {
	if o.Progress != nil {
		o.Progress(stage, done, total)
	}
}

func (o *Options) getenv(key string) string {
	if o.Config.Getenv != nil {
		return o.Config.Getenv(key)
	}
	return os.Getenv(key)
}

// LintError is returned when lint finds errors: compile refuses to write.
type LintError struct {
	Diagnostics []diag.Diagnostic
	// Root and Files are the workspace root and the config bytes, so the
	// findings can be printed with source excerpts, as lint prints them.
	Root  string
	Files map[string][]byte
}

func (e *LintError) Error() string {
	n := 0
	for _, d := range e.Diagnostics {
		if d.Severity == diag.Error {
			n++
		}
	}
	return fmt.Sprintf("the config has %d error(s); fix them and compile again (see `jp-policy lint`)", n)
}

// Result is a compiled workspace, in memory.
type Result struct {
	Root     string
	Artifact *artifact.Policy
	// Files maps a path relative to the output directory to its bytes
	// (Build only: Compile streams them to disk and leaves Files nil; its
	// Artifact keeps each tool's grants, manifests and hashes, while the
	// rest of each tool's entry is in the policy.json written).
	Files map[string][]byte
	// Diagnostics holds every warning (lint findings and compile-time
	// drops), sorted.
	Diagnostics []diag.Diagnostic
	// Loaded is the merged config the result came from (Build only).
	Loaded *config.Loaded
	// ConfigFiles holds the bytes of every config layer read, for the
	// source excerpts of Diagnostics (kept by Compile too: the bytes are
	// small next to the parse trees Compile lets go).
	ConfigFiles map[string][]byte
	// Clauses holds every tool's full clause list per platform (the
	// artifact keeps only a summary); Build only, like Files.
	Clauses map[string]map[platform.Platform][]plan.Clause

	policySHA256 string            // of policy.json, for the pin
	grantsSHA256 string            // of the artifact's grants record (artifact.ReviewedHasher)
	execHashes   map[string]string // tool -> SHA-256 of its exec plan, for the pin
	stage        *stage            // Compile: the written, not yet committed, artifact
}

// Build runs the whole pipeline in memory: nothing is written except
// approvals the user grants through the Prompter.
func Build(opts Options) (_ *Result, err error) {
	l, err := config.Load(opts.Config)
	if err != nil {
		return nil, err
	}
	root := l.Root
	opts.progress("checking", 0, len(l.Tools))
	store, diags, err := approvals.Open(root, opts.ApprovalsFile, opts.getenv)
	if err != nil {
		return nil, err
	}
	// One view of the disk for lint's binding and checkers and for
	// compile's binding: each rule path is looked up once per compile.
	disk := policy.NewStatCache()
	findings := runLint(l, store, &opts, disk)
	diags = append(diags, findings...)
	if diag.List(diags).HasErrors() {
		diag.Sort(diags)
		return nil, &LintError{Diagnostics: diags, Root: root, Files: l.Files}
	}

	if opts.prepareOut {
		// The Landlock split lists the directories it splits, and the
		// output directory sits inside the workspace: create it before
		// building so the first compile and every later one see the same
		// tree and write the same bytes.
		out := opts.OutDir
		if out == "" {
			out = defaultOutDir(root)
		}
		_, serr := os.Stat(out)
		if err := os.MkdirAll(out, 0o755); err != nil {
			return nil, err
		}
		if serr != nil {
			// Lint's answers predate the directories just made (a rule
			// may name them): bind on a fresh view, as without a cache.
			disk = policy.NewStatCache()
		}
		if opts.stream {
			// Compile writes the new artifact into a stage inside it
			// as it is emitted (see stage), holding the pin's lock from
			// here to the pin: a second compile of this artifact waits
			// (see lockOut).
			unlock, lerr := lockOut(&opts, root, out)
			if lerr != nil {
				return nil, lerr
			}
			st, serr := newStage(out)
			if serr != nil {
				unlock()
				return nil, serr
			}
			st.unlock = unlock
			disk.Forget(st.dir)
			opts.stage = st
			defer func() {
				if err != nil {
					st.discard()
				}
			}()
		}
	}

	names := localTools(l)
	opts.progress("binding", 0, len(names))
	if len(opts.Only) > 0 && !opts.prepareOut {
		names = slices.DeleteFunc(names, func(n string) bool { return !slices.Contains(opts.Only, n) })
	}
	bound, bdiags, err := bindAll(disk, root, l, names)
	if err != nil {
		return nil, err
	}
	diags = append(diags, bdiags...)

	approved, adiags, err := approveExternal(&opts, root, names, bound, store)
	if err != nil {
		return nil, err
	}
	diags = append(diags, adiags...)

	p := &artifact.Policy{
		Format:    artifact.FormatVersion,
		Generator: opts.Generator,
		Root:      root,
		Tools:     map[string]*artifact.Tool{},
	}
	emittedTools := map[string]emit.Tool{}
	// One view of the disk for every tool's emitters (emit.CachedFS).
	emitDisk := emit.NewCachedFS()
	// The paths no tool may write (start-up files, JP's user config and
	// storage, jp-policy's pins, the config files outside the workspace
	// the policy comes from), and the workspace's own config files,
	// located once.
	protected, policyFiles := protectedPaths(root, opts.getenv, opts.ApprovalsFile, l.PolicyFiles())
	// The macOS profile's host facts: the developer directory the xcrun
	// shims run tools from, and the home git reads its user config from
	// (HOME is already an input, so another HOME makes the artifact stale).
	devDir, home := sbpl.HostDeveloperDir(), sbpl.CanonicalHome(opts.getenv("HOME"))
	for _, name := range names {
		at, et, tdiags := buildTool(root, l.Tools[name], l.Defaults, bound[name], approved)
		et.FS = emitDisk
		et.Protected, et.PolicyFiles = protected, policyFiles
		et.DeveloperDir, et.Home = devDir, home
		p.Tools[name] = at
		emittedTools[name] = et
		diags = append(diags, tdiags...)
	}

	inputs, err := collectInputs(l, bound, store.Path(), time.Now)
	if err != nil {
		return nil, err
	}
	// The variables that say where JP's user-level config layers and
	// storage are (and where the protected paths are) are inputs of every
	// artifact: run with another XDG_CONFIG_HOME, JP reads another global
	// config, which exec must see as stale.
	inputs = withProtectedEnv(inputs, opts.lookupEnv)
	p.Inputs = inputs
	p.Digest = artifact.Digest(inputs)
	diag.Sort(diags)
	p.Warnings = diags

	res := &Result{Root: root, Artifact: p, Diagnostics: diags, ConfigFiles: l.Files, stage: opts.stage}
	if opts.stage == nil {
		// Compile does not keep the config: let its parse trees go
		// before the tools are emitted (a tenth of a 10,000-tool
		// compile's memory).
		res.Loaded = l
	}
	if opts.GrantsOnly && !opts.prepareOut {
		res.Loaded = l
		return res, nil
	}
	if err = writeArtifact(&opts, res, names, emittedTools, devDir); err != nil {
		return nil, err
	}
	return res, nil
}

// Compile builds and writes the artifact; a failure leaves the previous
// artifact untouched. It returns the directory written.
func Compile(opts Options) (*Result, string, error) {
	opts.prepareOut, opts.stream = true, true
	res, err := Build(opts)
	if err != nil {
		return nil, "", err
	}
	out, err := writeAndPin(&opts, res)
	return res, out, err
}

// localTools lists the tools that are compiled: those whose merged source
// is local. Builtin and MCP tools take no `access` (RFD 076).
func localTools(l *config.Loaded) []string {
	var names []string
	for name, t := range l.Tools {
		if isLocal(t.Source.Value) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

func isLocal(source string) bool {
	return source == "local" || strings.HasPrefix(source, "local.")
}

// ErrUnknownTool is returned by ToolPolicy for a name no layer configures.
var ErrUnknownTool = errors.New("unknown tool")

// discard drops the written but uncommitted artifact of a compile that
// will not be put in place.
func (r *Result) discard() {
	if r.stage != nil {
		r.stage.discard()
		r.stage = nil
	}
}

// protectedPaths returns the canonical paths no tool may write that lie
// outside the workspace (emit.Tool.Protected) and the workspace's own
// config files (emit.Tool.PolicyFiles), each as policy's WriteTargets
// makes it.
func protectedPaths(root string, getenv func(string) string, approvalsFile string, configFiles []string) (protected, inside []string) {
	protected = emit.ProtectedPaths(root, getenv)
	if approvalsFile != "" {
		if a, err := filepath.Abs(approvalsFile); err == nil {
			protected = append(protected, (*policy.StatCache)(nil).WriteTargets(a)...)
		}
	}
	for _, f := range configFiles {
		for _, t := range (*policy.StatCache)(nil).WriteTargets(f) {
			switch {
			case root != "" && policy.Within(t, root):
				if !slices.Contains(inside, t) {
					inside = append(inside, t)
				}
			case !slices.Contains(protected, t):
				protected = append(protected, t)
			}
		}
	}
	return protected, inside
}
