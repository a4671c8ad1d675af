package launcher

import (
	"fmt"

	"github.com/jp-policy/jp-policy/internal/plan"
	ll "github.com/jp-policy/jp-policy/internal/plan/landlock"
	jobplan "github.com/jp-policy/jp-policy/internal/plan/winjob"
	"github.com/jp-policy/jp-policy/internal/platform"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// Built is a plan made in-process rather than read from an artifact: the
// platform's manifest, as compile's emitters write it, for one tool. Exec
// --default runs RFD 075's default policy this way; the command layer
// builds it (this package never runs an emitter), and Prepare decides
// from it exactly as from an artifact's manifest.
type Built struct {
	Tool string
	// Linux is the Landlock manifest (Linux).
	Linux *ll.Manifest
	// ProfileText is the SBPL profile (macOS), with the environment
	// allowlist and commands that the profile itself does not carry.
	ProfileText string
	Env         plan.Env
	Commands    map[string]policy.CommandRule
	// Job is the job-object manifest (Windows).
	Job *jobplan.Manifest
}

// into fills p with b's sandbox for plat and returns the environment
// allowlist and commands that go with it; fold is set where variable
// names compare case-insensitively (Windows).
func (b *Built) into(p *Plan, plat platform.Platform) (env plan.Env, commands map[string]policy.CommandRule, fold bool, err error) {
	if p.Tool == "" {
		p.Tool = b.Tool
	}
	switch {
	case plat == platform.Linux && b.Linux != nil:
		p.Manifest = b.Linux
		return b.Linux.Env, b.Linux.Commands, false, nil
	case plat == platform.Darwin && b.ProfileText != "":
		p.ProfileText = b.ProfileText
		return b.Env, b.Commands, false, nil
	case plat == platform.Windows && b.Job != nil:
		p.Job = b.Job
		return b.Job.Env, b.Job.Commands, true, nil
	}
	return env, nil, false, fmt.Errorf("no in-process plan for %s", plat)
}
