// Package plan is the compiled plan exec runs: the vocabulary every
// platform's manifest shares (clauses and their enforcement status, the
// environment allowlist) and, in its subpackages, the manifests
// themselves (plan/landlock for Linux, plan/winjob for Windows, the
// profile parameters of plan/sbpl for macOS). Compile's emitters
// (internal/emit/...) write these types; exec, explain and the dry run
// only read them, so nothing at exec time imports the emitters.
package plan
