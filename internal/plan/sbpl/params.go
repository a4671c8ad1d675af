package sbpl

// Profile parameters the launcher defines with sandbox-exec -D. A profile
// that uses one the launcher does not define fails to load, so nothing
// runs unconfined by a missing value.
const (
	// ProxyPortParam holds the filtering proxy's port.
	ProxyPortParam = "JP_PROXY_PORT"
	// TmpDirParam holds the run's private scratch directory (canonical),
	// which the launcher also passes as TMPDIR.
	TmpDirParam = "JP_TMPDIR"
	// ProgramParam and ProgramRealParam hold the program the launcher
	// starts, as found on PATH and with every symlink resolved.
	ProgramParam     = "JP_PROGRAM"
	ProgramRealParam = "JP_PROGRAM_REAL"
)

// BaseFile is the start of every tool's profile, stored once in the
// artifact, relative to the artifact directory: the profile a launcher
// runs is this file's text followed by the tool's own file.
const BaseFile = "shared/sbpl.sb"
