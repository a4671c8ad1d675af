package launcher

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/platform"

	"golang.org/x/net/bpf"

	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/jpdirs"
	"github.com/jp-policy/jp-policy/internal/plan/landlock"
	sbplan "github.com/jp-policy/jp-policy/internal/plan/sbpl"
	"github.com/jp-policy/jp-policy/internal/plan/winjob"
	"github.com/jp-policy/jp-policy/internal/policy"
	"github.com/jp-policy/jp-policy/internal/seccomp"
)

// Options is one `jp-policy exec` invocation.
type Options struct {
	// Workspace is the workspace root; "" finds it from the current
	// directory (the nearest ancestor holding .jp).
	Workspace string
	// Artifact is the compiled policy.json; "" means
	// <workspace>/.jp/policy/policy.json.
	Artifact string
	Tool     string
	// Trace, when set, is exec --denials' seccomp program: its tracer
	// (learn.RunDenials, which started this exec) stops at the tool's
	// calls through it, installed on the thread that execs the tool just
	// before the tool's own filter, so none of exec's own calls stop.
	Trace []bpf.RawInstruction
	// Built, when set, is the plan to run instead of one read from an
	// artifact (exec --default: RFD 075's default policy, which the
	// caller builds with compile's emitters; see Built).
	Built *Built
	// BestEffort runs even when the kernel cannot enforce every clause,
	// after saying what is degraded.
	BestEffort bool
	// RequireABI refuses kernels whose Landlock ABI is below it.
	RequireABI int
	DryRun     bool
	// DryRunJSON prints the dry-run report as JSON (WriteDryRunJSON).
	DryRunJSON bool
	// Masks asks for exact masks of narrowed paths in a private mount
	// namespace (Linux, CAP_SYS_ADMIN); without it, or without the
	// privilege, the split grants apply.
	Masks bool
	// NSMode chooses between the namespaced path (Linux: the tool's
	// filesystem built from its grants in private user, mount and
	// network namespaces) and the fast one; see NSMode's values.
	NSMode NSMode
	// LogNet is a file for the proxy's decisions (JSON lines).
	LogNet string
	// Argv is the command, byte for byte as given after `--`.
	Argv []string
	// Environ is the launcher's environment (os.Environ()).
	Environ []string
	// Platform is runtime.GOOS; ABI is the kernel's Landlock ABI (Linux).
	Platform platform.Platform
	ABI      int
	// Recompile, when set, rebuilds a stale artifact and runs on when the
	// new policy widens nothing (recompile.go); nil refuses it as stale.
	Recompile Recompiler
}

// Plan is everything decided before the final exec.
type Plan struct {
	Tool     string
	Platform platform.Platform
	// Path is the resolved executable; Argv and Env are what it receives.
	Path string
	Argv []string
	Env  []string
	// Rule is the command rule that allowed the program (nil when the
	// policy has no commands).
	Rule *policy.CommandRule

	// Linux.
	ABI      int
	Manifest *landlock.Manifest
	// Masks: try exact masks before falling back to the split.
	Masks bool
	// Namespaced: run through the namespaced path (exec_ns_linux.go).
	Namespaced bool
	// NSNeeds are the parts of the policy only the namespaced path
	// enforces exactly; NSUnavailable, when set, says why the run falls
	// back to the fast path anyway.
	NSNeeds       []landlock.NSNeed
	NSUnavailable string
	// fallback is the fast plan kept aside by an automatic choice of the
	// namespaced path, for a Start that finds namespaces refused.
	fallback   *Plan
	bestEffort bool
	// NetRules are the tool's net rules; on the namespaced path a
	// filtering proxy decides every connection with them.
	NetRules []policy.NetRule
	// LogNet, when set, receives one JSON line per proxy decision.
	LogNet string
	// Filter is the assembled seccomp program for this machine's ABI;
	// nil only when the kernel cannot filter and --best-effort said to
	// run anyway (then Degraded lists the seccomp clauses).
	Filter []bpf.RawInstruction
	// Degraded lists the clauses this kernel cannot enforce in full.
	Degraded []Degradation
	// Trace is Options.Trace.
	Trace []bpf.RawInstruction

	// Profile is the macOS SBPL profile path; ProfileText, when set, is
	// an in-process profile (--default) passed inline instead.
	Profile     string
	ProfileText string
	// TmpDir is the run's private scratch directory on macOS (canonical),
	// granted by the profile's sbpl.TmpDirParam and exported as TMPDIR;
	// set by Exec (tmpdir_darwin.go).
	TmpDir string
	// WorkspaceRoot is the canonical workspace root of an artifact run
	// (the proxy's checker resolves net rules against it).
	WorkspaceRoot string
	// HostProxy is the loopback address of the filtering proxy the
	// launcher serves on the host for a tool with net rules (macOS, where
	// the profile lets the tool reach only it; Windows, where only the
	// proxy variables point there). Set by Exec.
	HostProxy string
	// Job is the Windows job-object manifest.
	Job *winjob.Manifest
}

// Degradation is one clause a kernel enforces only in part, and why.
type Degradation struct {
	Clause plan.Clause
	// Need is the Landlock ABI that would enforce it in full; 0 when the
	// reason is not the ABI (Reason says what is missing).
	Need   int
	Reason string
}

func (d Degradation) String() string {
	if d.Need == 0 {
		return fmt.Sprintf("%s (%s): %s", d.Clause.ID, d.Clause.What, d.Reason)
	}
	return fmt.Sprintf("%s (%s) needs Landlock ABI %d", d.Clause.ID, d.Clause.What, d.Need)
}

// why is what the dry run says about a degraded clause on this machine.
func (d Degradation) why(abi int) string {
	if d.Need == 0 {
		return d.Reason
	}
	return fmt.Sprintf("kernel Landlock ABI %d < %d", abi, d.Need)
}

// FindWorkspace returns the workspace root jpdirs.FindRoot finds from dir
// (canonical, as the compiler records it), or dir itself when no ancestor
// holds a .jp directory, so the caller can say where it looked.
func FindWorkspace(dir string) (string, error) {
	root, err := jpdirs.FindRoot(dir)
	if _, ok := errors.AsType[*jpdirs.NoWorkspaceError](err); ok {
		return filepath.Abs(dir)
	}
	return root, err
}

// locate returns the canonical workspace root the run is for and the
// artifact path to read. strict is set for the default location
// (<root>/.jp/policy/policy.json), where .jp and .jp/policy must be real
// directories: a tool that may write the workspace could otherwise point
// them at another workspace's artifact, which has a valid pin of its own.
func (o *Options) locate() (root, artifactPath string, strict bool, err error) {
	if o.Workspace == "" {
		root, err = FindWorkspace(".")
	} else {
		root, err = filepath.Abs(o.Workspace)
		if err == nil {
			root, err = filepath.EvalSymlinks(root)
		}
	}
	if err != nil {
		return "", "", false, fmt.Errorf("workspace: %w", err)
	}
	if o.Artifact != "" {
		artifactPath, err = filepath.Abs(o.Artifact)
		return root, artifactPath, false, err
	}
	return root, filepath.Join(root, filepath.FromSlash(artifact.DefaultDir), artifact.FileName), true, nil
}

// Prepare decides everything about a run without running it: it reads
// the tool's manifest (refusing a stale artifact), resolves the program,
// checks it against the commands, filters the environment, and works out
// which clauses this kernel enforces. It returns a refusal as an error;
// with DryRun it still returns the plan alongside the refusal so that the
// report can show it.
func Prepare(o *Options) (*Plan, error) {
	if len(o.Argv) == 0 {
		return nil, &UsageError{Msg: "no command given; put it after --"}
	}
	if o.Tool == "" && o.Built == nil {
		return nil, &UsageError{Msg: "--tool is required (or --default)"}
	}
	p := &Plan{Tool: o.Tool, Platform: o.Platform, Argv: o.Argv, ABI: o.ABI, Masks: o.Masks, Trace: o.Trace}
	var (
		envAllow plan.Env
		commands map[string]policy.CommandRule
		fold     bool // Windows variable names compare case-insensitively
	)
	switch {
	case o.Built != nil:
		var err error
		if envAllow, commands, fold, err = o.Built.into(p, o.Platform); err != nil {
			return nil, err
		}
	default:
		root, ap, strict, err := o.locate()
		if err != nil {
			return nil, err
		}
		p.WorkspaceRoot = root
		loc, err := resolveManifest(root, ap, strict, o.Tool, o.Platform)
		if errors.Is(err, artifact.ErrStale) && o.Recompile != nil && !o.DryRun {
			loc, err = o.recompileStale(root, ap, strict, err)
		}
		if err != nil {
			return nil, err
		}
		envAllow = plan.Env{Minimal: policy.MinimalEnv, Rules: loc.Env}
		commands = loc.Commands
		p.NetRules = loc.Net
		// Only bytes whose hash the artifact records are read, whatever
		// the platform.
		b, err := readVerified(loc.Manifest, loc.SHA256)
		if err != nil {
			return nil, err
		}
		switch o.Platform {
		case platform.Linux:
			m, err := decodeManifest(loc.Manifest, b)
			if err != nil {
				return nil, err
			}
			if err := loc.owns(m.Root, m.Tool, o.Tool); err != nil {
				return nil, err
			}
			if err := joinBase(loc, m); err != nil {
				return nil, err
			}
			p.Manifest = m
			envAllow, commands = m.Env, m.Commands
		case platform.Darwin:
			// Pass the verified text (-p), not the path (-f): the file
			// could change between the check and sandbox-exec reading it.
			// The profile is the shared base followed by the tool's file.
			_, base, err := readBase(loc, sbplan.BaseFile)
			if err != nil {
				return nil, err
			}
			p.Profile, p.ProfileText = loc.Manifest, string(base)+string(b)
		case platform.Windows:
			j, err := decodeWinJob(loc.Manifest, b)
			if err != nil {
				return nil, err
			}
			if err := loc.owns(j.Root, j.Tool, o.Tool); err != nil {
				return nil, err
			}
			p.Job = j
			envAllow, commands = j.Env, j.Commands
			fold = true
		}
	}

	path, err := lookPath(o.Argv[0])
	if err != nil {
		return nil, err
	}
	p.Path = path
	if p.Rule, err = CheckCommand(p.Tool, commands, o.Argv, path); err != nil {
		return p, err
	}
	if fold {
		p.Env = FilterEnvFold(o.Environ, envAllow, p.Rule)
	} else {
		p.Env = FilterEnv(o.Environ, envAllow, p.Rule)
	}
	p.Env = WithTerm(p.Env, o.Environ, envAllow.Rules)

	if o.Platform != platform.Linux {
		return p, nil
	}
	if o.RequireABI > 0 && o.ABI < o.RequireABI {
		return p, &ABITooLowError{Have: o.ABI, Want: o.RequireABI}
	}
	if p.Manifest.Seccomp == nil {
		return p, &MismatchError{Manifest: "the linux manifest", What: "manifest has no \"seccomp\"; refusing rather than running unfiltered"}
	}
	if p.Degraded, err = degraded(p.Manifest, o.ABI); err != nil {
		return p, err
	}
	p.bestEffort = o.BestEffort
	spec, err := p.choosePath(o, *p.Manifest.Seccomp)
	if err != nil {
		return p, err
	}
	filter, why := buildFilter(spec)
	if why != "" {
		for _, c := range p.Manifest.Clauses {
			if strings.HasPrefix(c.ID, "seccomp.") {
				p.Degraded = append(p.Degraded, Degradation{Clause: c, Reason: why})
			}
		}
	}
	p.Filter = filter
	if len(p.Degraded) > 0 && !o.BestEffort {
		return p, &UnenforceableError{ABI: o.ABI, Degraded: p.Degraded}
	}
	if err := p.setTmp(o.DryRun); err != nil {
		return p, err
	}
	return p, nil
}

// manifestShape holds the keys a Linux manifest must have, undecoded: a
// key that is absent (rather than null or empty) would otherwise decode as
// its zero value, and for net (Restrict false), commands (nil: any
// program) and seccomp that zero value is the widest. So their absence is
// refused, never read as "unrestricted".
type manifestShape struct {
	Net      json.RawMessage `json:"net"`
	Scope    json.RawMessage `json:"scope"`
	Commands json.RawMessage `json:"commands"`
	Seccomp  json.RawMessage `json:"seccomp"`
	FS       json.RawMessage `json:"fs"`
	Baseline json.RawMessage `json:"baseline"`
	Env      json.RawMessage `json:"env"`
}

// buildFilter assembles the seccomp program for this machine, or says
// why it cannot (no seccomp in the kernel, an ABI without a table).
func buildFilter(spec seccomp.Spec) ([]bpf.RawInstruction, string) {
	if err := seccomp.Available(); err != nil {
		return nil, err.Error()
	}
	arch, err := seccomp.ArchFor(runtime.GOARCH)
	if err != nil {
		return nil, err.Error()
	}
	prog, err := seccomp.Build(spec, arch)
	if err != nil {
		return nil, err.Error()
	}
	return prog, ""
}

func decodeManifest(path string, b []byte) (*landlock.Manifest, error) {
	var m landlock.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: not a landlock manifest: %w; run `jp-policy compile`", path, err)
	}
	if m.Version != landlock.FormatVersion {
		return nil, &MismatchError{Manifest: path, What: fmt.Sprintf("manifest format %d, this jp-policy reads %d", m.Version, landlock.FormatVersion)}
	}
	var shape manifestShape
	if err := json.Unmarshal(b, &shape); err != nil {
		return nil, fmt.Errorf("%s: not a landlock manifest: %w; run `jp-policy compile`", path, err)
	}
	for _, k := range []struct {
		name string
		raw  json.RawMessage
		null bool // null is a valid value (commands: any program)
	}{
		{"net", shape.Net, false}, {"scope", shape.Scope, false}, {"commands", shape.Commands, true},
		{"seccomp", shape.Seccomp, false}, {"fs", shape.FS, false}, {"baseline", shape.Baseline, false}, {"env", shape.Env, false},
	} {
		if len(k.raw) == 0 || (!k.null && string(k.raw) == "null") {
			return nil, &MismatchError{Manifest: path, What: fmt.Sprintf("manifest has no %q; refusing rather than reading it as unrestricted", k.name)}
		}
	}
	if err := m.Seccomp.Validate(); err != nil {
		return nil, &MismatchError{Manifest: path, What: err.Error()}
	}
	return &m, nil
}

// readBase reads the shared file rel of the artifact, checked against
// the hash the tool's (verified) exec plan records, so the pin's hash
// chain reaches it as it reaches the manifest.
func readBase(loc *located, rel string) (string, []byte, error) {
	path := filepath.Join(loc.Dir, filepath.FromSlash(rel))
	if loc.BaseSHA256 == "" {
		return path, nil, &MismatchError{Manifest: loc.Manifest, What: "the tool's exec plan names no shared " + rel + "; refusing rather than running without the baseline"}
	}
	b, err := readVerified(path, loc.BaseSHA256)
	return path, b, err
}

// joinBase completes m, a tool's Linux manifest file, with the shared
// base (landlock.JoinBase).
func joinBase(loc *located, m *landlock.Manifest) error {
	path, b, err := readBase(loc, landlock.BaseFile)
	if err != nil {
		return err
	}
	var base landlock.Base
	if err := json.Unmarshal(b, &base); err != nil {
		return fmt.Errorf("%s: not a shared landlock base: %w; run `jp-policy compile`", path, err)
	}
	if err := landlock.JoinBase(m, &base); err != nil {
		return &MismatchError{Manifest: loc.Manifest, What: err.Error()}
	}
	return nil
}

// degraded lists the clauses a kernel with the given ABI cannot enforce
// in full. It trusts the clauses' MinABI, and also checks what the rules
// actually use, so a manifest that forgot a clause still fails closed.
func degraded(m *landlock.Manifest, abi int) ([]Degradation, error) {
	var out []Degradation
	for _, c := range m.Clauses {
		if c.MinABI > abi {
			out = append(out, Degradation{Clause: c, Need: c.MinABI})
		}
	}
	need, err := requiredABI(m)
	if err != nil {
		return nil, err
	}
	if need > abi {
		covered := false
		for _, d := range out {
			covered = covered || d.Need >= need
		}
		if !covered {
			out = append(out, Degradation{
				Clause: plan.Clause{ID: "manifest", What: "the access rights, net rules and scopes the manifest uses", Status: plan.Enforced, MinABI: need},
				Need:   need,
			})
		}
	}
	return out, nil
}

// requiredABI is the lowest ABI that knows everything the manifest uses.
func requiredABI(m *landlock.Manifest) (int, error) { return landlock.UsedABI(m) }
