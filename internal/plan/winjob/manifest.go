package winjob

import (
	"github.com/jp-policy/jp-policy/internal/plan"
	"github.com/jp-policy/jp-policy/internal/policy"
)

// FormatVersion is bumped whenever the manifest's meaning changes.
const FormatVersion = 1

// UI restriction names, as JOB_OBJECT_UILIMIT_* without the prefix,
// lower-cased.
const (
	UIDesktop          = "desktop"
	UIDisplaySettings  = "displaysettings"
	UIExitWindows      = "exitwindows"
	UIGlobalAtoms      = "globalatoms"
	UIHandles          = "handles"
	UIReadClipboard    = "readclipboard"
	UISystemParameters = "systemparameters"
	UIWriteClipboard   = "writeclipboard"
)

// Limits are the job object's basic and extended limits.
type Limits struct {
	// KillOnJobClose: every process in the job dies when the launcher's
	// job handle closes (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE), so nothing
	// the tool started outlives it.
	KillOnJobClose bool `json:"kill_on_job_close"`
	// DieOnUnhandledException suppresses the Windows error dialog
	// (JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION).
	DieOnUnhandledException bool `json:"die_on_unhandled_exception"`
	// BreakawayOK is always false: children cannot leave the job.
	BreakawayOK bool `json:"breakaway_ok"`
	// ActiveProcessLimit caps the processes alive in the job at once
	// (JOB_OBJECT_LIMIT_ACTIVE_PROCESS); 0 means no limit.
	ActiveProcessLimit uint32 `json:"active_process_limit"`
}

// Manifest is what `jp-policy exec` applies on Windows for one tool.
type Manifest struct {
	Version int    `json:"version"`
	Tool    string `json:"tool"`
	Root    string `json:"root"`
	Limits  Limits `json:"limits"`
	// UIRestrictions lists JOB_OBJECT_UILIMIT_* names to set.
	UIRestrictions []string `json:"ui_restrictions"`
	Env            plan.Env `json:"env"`
	// Commands is nil when any program may run; the launcher checks the
	// program it starts against it.
	Commands map[string]policy.CommandRule `json:"commands"`
	Clauses  []plan.Clause                 `json:"clauses"`
}
