package launcher

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jp-policy/jp-policy/internal/platform"

	"github.com/jp-policy/jp-policy/internal/artifact"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// fakeRecompiler returns a fixed artifact; commit runs on Commit.
type fakeRecompiler struct {
	t       *testing.T
	built   *artifact.Policy
	err     error
	commit  func() error
	rebuilt int
	notices []string
	baseIn  *artifact.Policy
}

func (f *fakeRecompiler) Rebuild(root, artifactPath string) (Rebuilt, error) {
	f.rebuilt++
	if f.err != nil {
		return nil, f.err
	}
	return fakeRebuilt{f}, nil
}

func (f *fakeRecompiler) Notice(msg string) { f.notices = append(f.notices, msg) }

type fakeRebuilt struct{ f *fakeRecompiler }

func (r fakeRebuilt) Artifact() *artifact.Policy { return r.f.built }
func (r fakeRebuilt) Commit(reviewed *artifact.Policy) error {
	r.f.baseIn = reviewed
	return r.f.commit()
}

func toolWithEnv(names ...string) *artifact.Policy {
	var env []policy.EnvRule
	for _, n := range names {
		env = append(env, policy.EnvRule{Name: n, Read: true})
	}
	return &artifact.Policy{Format: artifact.FormatVersion, Tools: map[string]*artifact.Tool{
		"t": {Enabled: true, Access: policy.AccessPolicy{Env: env}}}}
}

// denyEnv is t with no variable at all (an empty list would be
// unrestricted).
func denyEnv() *artifact.Policy {
	p := toolWithEnv("TOKEN")
	p.Tools["t"].Access.Env[0].Read = false
	return p
}

func TestRecompileStale(t *testing.T) {
	if platform.Host == platform.Windows {
		t.Skip("needs a POSIX sh on PATH")
	}
	layerEdit := "# a comment\n# layer\n"
	tests := []struct {
		name       string
		edit       bool // change the layer (stale)
		dryRun     bool
		built      *artifact.Policy
		buildErr   error
		commitFail bool
		wantErr    any // nil, *StaleWideningError, *StaleRecompileError, ErrStale
		wantBuilds int
		notice     string
	}{
		{name: "current artifact: the fast path never rebuilds", built: toolWithEnv("TOKEN"), wantBuilds: 0},
		{name: "stale, same grants: committed and run", edit: true, built: toolWithEnv("TOKEN"), wantBuilds: 1, notice: "recompiled and pinned it: no grant changed"},
		{name: "stale, narrower: committed and run", edit: true, built: denyEnv(), wantBuilds: 1, notice: "grants narrowed for t, none widened"},
		{name: "stale, wider: refused with the diff", edit: true, built: toolWithEnv("TOKEN", "AWS_SECRET"), wantBuilds: 1, wantErr: &StaleWideningError{}},
		{name: "stale, config does not load", edit: true, buildErr: errors.New("the config has 1 error(s)"), wantBuilds: 1, wantErr: &StaleRecompileError{}},
		{name: "stale, commit fails", edit: true, built: toolWithEnv("TOKEN"), commitFail: true, wantBuilds: 1, wantErr: &StaleRecompileError{}},
		{name: "dry run does not recompile", edit: true, dryRun: true, built: toolWithEnv("TOKEN"), wantBuilds: 0, wantErr: artifact.ErrStale},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := writeArtifact(t, testManifest())
			layer := filepath.Join(ws, ".jp", "config.toml")
			orig, _ := os.ReadFile(layer)
			if tc.edit {
				must(t, os.WriteFile(layer, []byte(layerEdit), 0o644))
			}
			f := &fakeRecompiler{t: t, built: tc.built, err: tc.buildErr, commit: func() error {
				if tc.commitFail {
					return errors.New("disk full")
				}
				// What a real commit achieves: the artifact is current.
				return os.WriteFile(layer, orig, 0o644)
			}}
			o := Options{Workspace: ws, Tool: "t", Argv: []string{"sh"}, Platform: platform.Linux, ABI: 7, DryRun: tc.dryRun, Recompile: f}
			_, err := Prepare(&o)
			if f.rebuilt != tc.wantBuilds {
				t.Errorf("rebuilt %d times, want %d", f.rebuilt, tc.wantBuilds)
			}
			switch want := tc.wantErr.(type) {
			case nil:
				if err != nil {
					t.Fatalf("err = %v", err)
				}
			case *StaleWideningError:
				var we *StaleWideningError
				if !errors.As(err, &we) || !errors.Is(err, artifact.ErrStale) {
					t.Fatalf("err = %v, want a StaleWideningError", err)
				}
				for _, s := range []string{"the config now grants more than the compiled policy", "t: env: read TOKEN → read TOKEN, AWS_SECRET", "widened: now also read on `AWS_SECRET`", "`jp-policy compile --accept-widening --workspace " + ws + "`"} {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("refusal lacks %q:\n%v", s, err)
					}
				}
			case *StaleRecompileError:
				var re *StaleRecompileError
				if !errors.As(err, &re) || !errors.Is(err, artifact.ErrStale) {
					t.Fatalf("err = %v, want a StaleRecompileError", err)
				}
			case error:
				if !errors.Is(err, want) {
					t.Fatalf("err = %v, want %v", err, want)
				}
			}
			if tc.notice != "" {
				if len(f.notices) != 1 || !strings.Contains(f.notices[0], tc.notice) {
					t.Errorf("notices %q, want one with %q", f.notices, tc.notice)
				}
				if f.baseIn == nil || f.baseIn.Tools["t"] == nil {
					t.Errorf("commit was not given the accepted grants as the baseline")
				}
			} else if len(f.notices) != 0 {
				t.Errorf("unexpected notices %q", f.notices)
			}
		})
	}
}
