package compiler

import (
	"errors"
	"fmt"
	"github.com/jp-policy/jp-policy/internal/approvals"
	"github.com/jp-policy/jp-policy/internal/platform"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/diag"
	"github.com/jp-policy/jp-policy/internal/emit"
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

	prepareOut bool // set by Compile: create OutDir before building
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
	// Files maps a path relative to the output directory to its bytes.
	Files map[string][]byte
	// Diagnostics holds every warning (lint findings and compile-time
	// drops), sorted.
	Diagnostics []diag.Diagnostic
	// Loaded is the merged config the result came from.
	Loaded *config.Loaded
	// Clauses holds every tool's full clause list per platform (the
	// artifact keeps only a summary).
	Clauses map[string]map[platform.Platform][]emit.Clause
}

// Build runs the whole pipeline in memory: nothing is written except
// approvals the user grants through the Prompter.
func Build(opts Options) (*Result, error) {
	l, err := config.Load(opts.Config)
	if err != nil {
		return nil, err
	}
	root := l.Root
	store, diags, err := approvals.Open(root, opts.ApprovalsFile, opts.getenv)
	if err != nil {
		return nil, err
	}
	findings := runLint(l, store, &opts)
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
		if err := os.MkdirAll(out, 0o755); err != nil {
			return nil, err
		}
	}

	names := localTools(l)
	bound, bdiags, err := bindAll(root, l, names)
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
	for _, name := range names {
		at, et, tdiags := buildTool(root, l.Tools[name], bound[name], approved)
		p.Tools[name] = at
		emittedTools[name] = et
		diags = append(diags, tdiags...)
	}

	inputs, err := collectInputs(l, bound, store.Path())
	if err != nil {
		return nil, err
	}
	p.Inputs = inputs
	p.Digest = artifact.Digest(inputs)

	files, clauses, err := emitAll(p, names, emittedTools)
	if err != nil {
		return nil, err
	}
	// One small file per tool for exec, which then reads what one tool
	// needs whatever the size of the workspace (the pin holds each hash).
	for name := range p.Tools {
		b, err := marshalJSON(artifact.ExecIndexOf(p, name))
		if err != nil {
			return nil, err
		}
		files[artifact.ExecFile(name)] = b
	}
	diag.Sort(diags)
	p.Warnings = diags
	b, err := marshalJSON(p)
	if err != nil {
		return nil, err
	}
	files[artifact.FileName] = b
	files[".gitignore"] = []byte("# Written by jp-policy compile: this directory holds machine-local,\n# absolute paths and must not be committed.\n*\n")
	return &Result{Root: root, Artifact: p, Files: files, Diagnostics: diags, Loaded: l, Clauses: clauses}, nil
}

// Compile builds and writes the artifact; a failure leaves the previous
// artifact untouched. It returns the directory written.
func Compile(opts Options) (*Result, string, error) {
	opts.prepareOut = true
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
