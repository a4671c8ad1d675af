// Package winjob is the Windows job-object manifest exec runs, as
// compile's emitter (internal/emit/winjob) writes it: the job's limits
// and UI restrictions, the environment allowlist and the commands.
package winjob
