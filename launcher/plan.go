package launcher

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/jp-policy/jp-policy/artifact"
	"github.com/jp-policy/jp-policy/config"
	"github.com/jp-policy/jp-policy/emit"
	"github.com/jp-policy/jp-policy/emit/landlock"
	"github.com/jp-policy/jp-policy/emit/winjob"
	"github.com/jp-policy/jp-policy/policy"
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
	// Default runs under RFD 075's default policy for the workspace,
	// built in-process, instead of reading an artifact.
	Default bool
	// Manifest, when set, is used instead of reading the artifact.
	Manifest *landlock.Manifest
	// BestEffort runs even when the kernel cannot enforce every clause,
	// after saying what is degraded.
	BestEffort bool
	// RequireABI refuses kernels whose Landlock ABI is below it.
	RequireABI int
	DryRun     bool
	// Masks asks for exact masks of narrowed paths in a private mount
	// namespace (Linux, CAP_SYS_ADMIN); without it, or without the
	// privilege, the split grants apply.
	Masks bool
	// Argv is the command, byte for byte as given after `--`.
	Argv []string
	// Environ is the launcher's environment (os.Environ()).
	Environ []string
	// Platform is runtime.GOOS; ABI is the kernel's Landlock ABI (Linux).
	Platform string
	ABI      int
}

// Plan is everything decided before the final exec.
type Plan struct {
	Tool     string
	Platform string
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
	// Degraded lists the clauses this kernel cannot enforce in full.
	Degraded []Degradation

	// Profile is the macOS SBPL profile path; ProfileText, when set, is
	// an in-process profile (--default) passed inline instead.
	Profile     string
	ProfileText string
	// Job is the Windows job-object manifest.
	Job *winjob.Manifest
}

// Degradation is one clause a kernel enforces only in part, and why.
type Degradation struct {
	Clause emit.Clause
	// Need is the Landlock ABI that would enforce it in full.
	Need int
}

func (d Degradation) String() string {
	return fmt.Sprintf("%s (%s) needs Landlock ABI %d", d.Clause.ID, d.Clause.What, d.Need)
}

// FindWorkspace returns the workspace root config.FindRoot finds from dir
// (canonical, as the compiler records it), or dir itself when no ancestor
// holds a .jp directory, so the caller can say where it looked.
func FindWorkspace(dir string) (string, error) {
	root, err := config.FindRoot(dir)
	var none *config.NoWorkspaceError
	if errors.As(err, &none) {
		return filepath.Abs(dir)
	}
	return root, err
}

// ArtifactPath returns the artifact path opts names.
func (o *Options) ArtifactPath() (string, error) {
	if o.Artifact != "" {
		return filepath.Abs(o.Artifact)
	}
	ws := o.Workspace
	if ws == "" {
		var err error
		if ws, err = FindWorkspace("."); err != nil {
			return "", err
		}
	}
	return filepath.Join(ws, filepath.FromSlash(artifact.DefaultDir), artifact.FileName), nil
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
	if o.Tool == "" && o.Manifest == nil && !o.Default {
		return nil, &UsageError{Msg: "--tool is required (or --default)"}
	}
	p := &Plan{Tool: o.Tool, Platform: o.Platform, Argv: o.Argv, ABI: o.ABI, Masks: o.Masks}
	var (
		envAllow landlock.Env
		commands map[string]policy.CommandRule
		fold     bool // Windows variable names compare case-insensitively
	)
	switch {
	case o.Manifest != nil:
		p.Manifest = o.Manifest
		if p.Tool == "" {
			p.Tool = o.Manifest.Tool
		}
		envAllow, commands = o.Manifest.Env, o.Manifest.Commands
	case o.Default:
		var err error
		if envAllow, commands, fold, err = prepareDefault(o, p); err != nil {
			return nil, err
		}
	default:
		ap, err := o.ArtifactPath()
		if err != nil {
			return nil, err
		}
		loc, err := resolveManifest(ap, o.Tool, o.Platform)
		if err != nil {
			return nil, err
		}
		envAllow = landlock.Env{Minimal: policy.MinimalEnv, Rules: loc.Env}
		commands = loc.Commands
		switch o.Platform {
		case "linux":
			b, err := readVerified(loc.Manifest, loc.SHA256)
			if err != nil {
				return nil, err
			}
			m, err := decodeManifest(loc.Manifest, b)
			if err != nil {
				return nil, err
			}
			if m.Digest != loc.Digest {
				return nil, &MismatchError{Manifest: loc.Manifest, What: "manifest digest differs from the artifact's (a partial compile?)"}
			}
			if m.Tool != o.Tool {
				return nil, &MismatchError{Manifest: loc.Manifest, What: fmt.Sprintf("manifest is for tool %q, not %q", m.Tool, o.Tool)}
			}
			p.Manifest = m
			envAllow, commands = m.Env, m.Commands
		case "darwin":
			// Pass the verified text (-p), not the path (-f): the file
			// could change between the check and sandbox-exec reading it.
			b, err := readVerified(loc.Manifest, loc.SHA256)
			if err != nil {
				return nil, err
			}
			p.Profile, p.ProfileText = loc.Manifest, string(b)
		case "windows":
			b, err := readVerified(loc.Manifest, loc.SHA256)
			if err != nil {
				return nil, err
			}
			j, err := decodeWinJob(loc.Manifest, b)
			if err != nil {
				return nil, err
			}
			if j.Digest != loc.Digest {
				return nil, &MismatchError{Manifest: loc.Manifest, What: "manifest digest differs from the artifact's (a partial compile?)"}
			}
			p.Job = j
			envAllow, commands = landlock.Env(j.Env), j.Commands
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

	if o.Platform != "linux" {
		return p, nil
	}
	if o.RequireABI > 0 && o.ABI < o.RequireABI {
		return p, &ABITooLowError{Have: o.ABI, Want: o.RequireABI}
	}
	if p.Degraded, err = degraded(p.Manifest, o.ABI); err != nil {
		return p, err
	}
	if len(p.Degraded) > 0 && !o.BestEffort {
		return p, &UnenforceableError{ABI: o.ABI, Degraded: p.Degraded}
	}
	return p, nil
}

func decodeManifest(path string, b []byte) (*landlock.Manifest, error) {
	var m landlock.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: not a landlock manifest: %w; run `jp-policy compile`", path, err)
	}
	if m.Version != landlock.FormatVersion {
		return nil, &MismatchError{Manifest: path, What: fmt.Sprintf("manifest format %d, this jp-policy reads %d", m.Version, landlock.FormatVersion)}
	}
	return &m, nil
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
				Clause: emit.Clause{ID: "manifest", What: "the access rights, net rules and scopes the manifest uses", Status: emit.Enforced, MinABI: need},
				Need:   need,
			})
		}
	}
	return out, nil
}

// requiredABI is the lowest ABI that knows everything the manifest uses.
func requiredABI(m *landlock.Manifest) (int, error) {
	need := max(m.MinABI, 1)
	for _, set := range [][]landlock.PathRule{m.FS, m.Baseline} {
		for _, r := range set {
			mask, err := parseRights(r.Clause, r.Access)
			if err != nil {
				return 0, err
			}
			need = max(need, minABIForFS(mask))
		}
	}
	if m.Net.Restrict || len(m.Net.ConnectTCP) > 0 || len(m.Net.BindTCP) > 0 {
		need = max(need, 4)
	}
	for _, s := range m.Scope {
		if _, ok := scopeByName[s]; !ok {
			return 0, &UnknownRightError{Clause: "scope", Kind: "scope", Name: s}
		}
		need = max(need, 6)
	}
	return need, nil
}
