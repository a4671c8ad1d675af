// Package rulematch is the lean core of package policy's env and command
// evaluators: the EnvRule and CommandRule wire types and the pure
// matchers on them (MatchEnv, MatchCommand, ResolveProgram). Package
// policy re-exports every one of them (type aliases and wrappers), so
// there is still one evaluator; it lives here so that the exec path's
// lean binary (cmd/jp-policy-exec) can decide a run without linking the
// rest of policy (IDNA, Unicode normalisation, URL parsing), whose start-
// up and size it cannot afford. It imports nothing of the module but
// internal/platform.
package rulematch
