package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/jp-policy/jp-policy/internal/platform"

	"github.com/jp-policy/jp-policy/internal/compiler"
	"github.com/jp-policy/jp-policy/internal/config"
	"github.com/jp-policy/jp-policy/internal/diag"
	"golang.org/x/term"
)

// CompileCmd is `jp-policy compile`.
type CompileCmd struct {
	Workspace string   `short:"w" help:"Workspace root (default: the nearest directory at or above the working directory that holds .jp/)." type:"path" placeholder:"DIR"`
	Cfg       []string `help:"Extra config applied last, read as JP reads --cfg: a file, a name in config_load_paths, @PATH, KEY=VALUE, KEY:=JSON or {JSON} (repeatable)." placeholder:"CFG" sep:"none"`
	Out       string   `help:"Output directory (default: <workspace>/.jp/policy)." type:"path" placeholder:"DIR"`
	Approvals string   `help:"Approvals store to use instead of JP's approvals.json." type:"path" placeholder:"FILE" sep:"none"`
	NoInput   bool     `help:"Never prompt: unapproved external targets are dropped with a warning, and a widening is refused unless --accept-widening."`
	// AcceptWidening is the non-interactive consent of issue 15.
	AcceptWidening bool   `help:"Accept grants that widen what was last compiled here (review them with jp-policy diff first)." name:"accept-widening"`
	Format         string `help:"Output format: text, or json (what was written, one JSON object; docs/output.md)." enum:"text,json" default:"text"`
	Quiet          bool   `short:"q" help:"Print only errors: no summary, no warnings (a grant diff accepted with --accept-widening is still shown)."`
	Verbose        bool   `help:"List every tool's manifests (by default up to 20 tools are listed one per line, more get a summary)."`
	Conversation   string `help:"Compile the policy JP applies when it continues this stored conversation (jp-c<id>): its stored config is merged after JP_CFG_ variables and before --cfg, its fs rules replacing the files'." placeholder:"ID"`
}

// compileJSON is compile's --format json result (docs/output.md).
type compileJSON struct {
	Out    string            `json:"out"`    // the artifact directory, relative to the working directory when inside it
	Policy string            `json:"policy"` // out/policy.json
	Digest string            `json:"digest"`
	Tools  []compileJSONTool `json:"tools"` // sorted by name
}

type compileJSONTool struct {
	Name      string                       `json:"name"`
	Defaulted bool                         `json:"defaulted"`
	Manifests map[platform.Platform]string `json:"manifests"` // platform -> manifest path, relative to out
}

// compileListMax is how many tools compile lists one per line; a larger
// workspace gets a summary, so its output stays readable (--verbose lists
// them all).
const compileListMax = 20

// compileMemoryLimit is compile's soft memory limit (GOMEMLIMIT
// overrides it). It leaves room above the live heap of a large compile
// (the parse tree and the merged tools, live together while the config is
// parsed and merged), so the collector does not run back to back; the
// peak resident memory is set by the live heap either way
// (docs/compile.md).
const compileMemoryLimit = 256 << 20

// Run compiles and reports what was written.
func (c *CompileCmd) Run(g *Globals) error {
	if err := requireWorkspace(c.Workspace, exitUsage); err != nil {
		return err
	}
	opts := compiler.Options{
		Config:        conversationOptions(c.Workspace, c.Cfg, c.Conversation),
		OutDir:        c.Out,
		ApprovalsFile: c.Approvals,
		Generator:     "jp-policy " + version,
	}
	rv := compiler.Review{Accept: c.AcceptWidening}
	var progress *progressLine
	if !c.Quiet && c.Format == "text" && isTerminal(g.Stderr) {
		progress = newProgressLine(g.Stderr, time.Now)
		opts.Progress = progress.update
		defer progress.clear()
	}
	if !c.NoInput && isTerminal(g.Stdin) && isTerminal(g.Stderr) {
		var out io.Writer = g.Stderr
		if progress != nil {
			out = &clearFirst{p: progress, w: g.Stderr} // a question starts on a clean line
		}
		p := &compiler.TextPrompter{In: g.Stdin, Out: out}
		opts.Prompter, rv.Prompter = p, p
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// A soft ceiling instead of the collector's default of twice the
		// live heap: parsing and merging a large config holds its parse
		// tree and the merged tools at once, and the default lets the heap
		// grow to twice that before collecting (docs/compile.md). Smaller workspaces never
		// get near it; larger ones collect more often rather than grow.
		debug.SetMemoryLimit(compileMemoryLimit)
	}
	if os.Getenv("GOGC") == "" {
		// Under that ceiling, collect when the heap triples rather than
		// doubles: a large compile otherwise spends much of its CPU
		// marking the same live tools over and over, and the ceiling
		// keeps the peak where it was; a small one costs the same
		// either way.
		debug.SetGCPercent(200)
	}
	stopCleanup := discardStagesOnSignal()
	res, out, err := compileReviewed(g, opts, rv)
	stopCleanup()
	if progress != nil {
		progress.clear() // before anything else is printed
	}
	if err != nil {
		return err
	}
	if !c.Quiet {
		printFindings(g, res.Diagnostics, res.Root, res.ConfigFiles)
	}
	names := make([]string, 0, len(res.Artifact.Tools))
	defaulted := 0
	for n, t := range res.Artifact.Tools {
		names = append(names, n)
		if t.Defaulted {
			defaulted++
		}
	}
	sort.Strings(names)
	rel := out
	if wd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(wd, out); err == nil && !filepath.IsAbs(r) && len(r) < len(out) {
			rel = r
		}
	}
	switch {
	case c.Quiet:
		return nil
	case c.Format == "json":
		r := compileJSON{Out: rel, Policy: filepath.Join(rel, "policy.json"), Digest: res.Artifact.Digest, Tools: []compileJSONTool{}}
		for _, n := range names {
			t := res.Artifact.Tools[n]
			r.Tools = append(r.Tools, compileJSONTool{Name: n, Defaulted: t.Defaulted, Manifests: t.Manifests})
		}
		return g.writeJSON(r)
	}
	fmt.Fprintf(g.Stdout, "compiled %d local tool(s) (%d defaulted) into %s\n", len(names), defaulted, rel)
	fmt.Fprintf(g.Stdout, "  %s\n", filepath.Join(rel, "policy.json"))
	if len(names) > compileListMax && !c.Verbose {
		fmt.Fprintf(g.Stdout, "  %d tools: a manifest each in landlock/, sbpl/ and winjob/, an exec plan each in exec/ (--verbose lists them)\n", len(names))
	} else {
		for _, n := range names {
			t := res.Artifact.Tools[n]
			fmt.Fprintf(g.Stdout, "  %-24s %s, %s, %s\n", n, t.Manifests[platform.Linux], t.Manifests[platform.Darwin], t.Manifests[platform.Windows])
		}
	}
	fmt.Fprintf(g.Stdout, "digest %s\n", res.Artifact.Digest)
	return nil
}

// conversationOptions are configOptions with a stored conversation's
// layer (compile and config --conversation).
func conversationOptions(workspace string, cfg []string, conversation string) config.Options {
	o := configOptions(workspace, cfg)
	o.Conversation = conversation
	return o
}

// configOptions builds the loader options shared by every command.
func configOptions(workspace string, cfg []string) config.Options {
	wd, _ := os.Getwd()
	return config.Options{Workspace: workspace, Cwd: wd, Cfg: cfg}
}

// compileError prints a failed compile: the findings that stopped it, or
// the loader's error, and maps it to an exit code.
func compileError(g *Globals, err error) error {
	if le, ok := errors.AsType[*compiler.LintError](err); ok {
		printFindings(g, le.Diagnostics, le.Root, le.Files)
		return fail(exitFail, err)
	}
	if dl, ok := errors.AsType[diag.List](err); ok {
		printFindings(g, dl, "", nil)
		return fail(exitUsage, errors.New("the config cannot be loaded"))
	}
	return fail(exitUsage, err)
}

// isTerminal reports whether v is a terminal file.
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// discardStagesOnSignal removes this compile's staging directory when it
// is interrupted (Ctrl-C, an editor or pre-commit stopping it) before it
// exits with the shell's code for that signal; the previous artifact and
// its pin stay. A compile killed outright leaves its stage to the next
// compile, which removes it. The returned function stops listening.
func discardStagesOnSignal() (stop func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			compiler.DiscardStages()
			code := 130
			if n, ok := s.(syscall.Signal); ok {
				code = 128 + int(n)
			}
			os.Exit(code)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}

// progressLine is compile's progress on a terminal: nothing for a compile
// that finishes within progressAfter, then one line rewritten in place
// (at most every progressEvery) saying the stage and how many tools are
// written, removed when the compile ends. A prompt (approvals, a
// widening) clears it first, since it writes to the same terminal.
type progressLine struct {
	w     io.Writer
	now   func() time.Time
	start time.Time
	last  time.Time
	shown bool
	mu    sync.Mutex
}

const (
	progressAfter = time.Second
	progressEvery = 100 * time.Millisecond
)

func newProgressLine(w io.Writer, now func() time.Time) *progressLine {
	return &progressLine{w: w, now: now, start: now()}
}

func (p *progressLine) update(stage string, done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.now()
	if t.Sub(p.start) < progressAfter || (p.shown && t.Sub(p.last) < progressEvery && done != total) {
		return
	}
	p.last, p.shown = t, true
	msg := fmt.Sprintf("compiling: %s (%d tools)", stage, total)
	if stage == "writing" && total > 0 {
		msg = fmt.Sprintf("compiling: writing %d/%d tools (%d%%)", done, total, done*100/total)
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s", msg)
}

// clearFirst is the prompter's writer: the progress line goes before a
// question is written.
type clearFirst struct {
	p *progressLine
	w io.Writer
}

func (c *clearFirst) Write(b []byte) (int, error) {
	c.p.clear()
	return c.w.Write(b)
}

func (p *progressLine) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}
