// Package rulematch is the lean core of package policy's env and command
// evaluators: the EnvRule and CommandRule wire types and the pure
// matchers on them (MatchEnv, MatchCommand, ResolveProgram). Package
// policy re-exports every one of them (type aliases and wrappers), so
// there is one evaluator; exec's environment filter uses it directly. It
// imports nothing of the module but internal/platform.
package rulematch
