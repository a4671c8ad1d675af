// Package winjob is the Windows emitter: it builds the job-object
// manifest (internal/plan/winjob) the Windows launcher applies (kill on
// job close, no breakaway, an active process limit when the policy allows
// no subprocess, UI restrictions, the environment block) and an honest
// clause list for what a job object cannot enforce (per-path files, hosts
// and ports), which stays with the tool's own check (RFD 076).
package winjob
