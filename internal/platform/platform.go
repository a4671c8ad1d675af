// Package platform names the three platforms jp-policy compiles for and
// enforces on. The names are runtime.GOOS values and are written into
// policy.json as they are (the keys of a tool's manifests and enforcement
// maps), so they never change.
//
// The type lives here rather than in package policy: policy's API
// (canonicalisation and access decisions) takes no platform, and other
// Go programs have no use for the artifact's platform keys.
package platform

import "runtime"

// Platform is a runtime.GOOS value jp-policy knows.
type Platform string

const (
	Linux   Platform = "linux"   // Landlock
	Darwin  Platform = "darwin"  // sandbox-exec (SBPL)
	Windows Platform = "windows" // job object
)

// All lists the platforms in the order jp-policy reports them.
var All = []Platform{Linux, Darwin, Windows}

// Host is the platform this binary was built for. It is a constant, so a
// comparison with it costs nothing and the untaken branch is compiled out.
const Host = Platform(runtime.GOOS)

func (p Platform) String() string { return string(p) }
