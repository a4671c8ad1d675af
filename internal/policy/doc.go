// Package policy owns the access-policy wire types (the JSON shape of JP's
// jp_tool::AccessPolicy plus jp-policy's `commands` and `config`
// extensions) and every decision made against them:
//
//   - Canonicalize, the one canonicalisation routine for target paths (RFD
//     076 "Path evaluation" as amended by RFD D43, stricter than JP on
//     dangling links, loops, NUL bytes and over-long paths);
//   - BindRule and BindAll, the compile-time canonicalisation and
//     classification of fs rule paths (the compiler runs the approvals);
//   - StatCache, which runs the same routines with each distinct path
//     looked up on disk once, for a caller binding many rules in one pass
//     (compile, and lint within it);
//   - Checker, which answers fs, net, env, config and command questions
//     for one tool and renders Decisions as the `check --json` contract;
//   - the pure matchers (MatchEnv, MatchCommand, MatchConfig) and
//     validators (NormalizeHost, ValidateNetRule, ...) that the launcher,
//     the emitters and lint call instead of re-implementing them;
//   - Default, RFD 075's default policy, and DenyAllFS.
//
// It is the engine behind every command, internal to this module until a
// Go program outside it needs one (then its API is chosen for that use).
// The package does no config loading and no
// I/O beyond resolving symlinks under the workspace root (and PATH lookup
// for CheckCommand). Errors callers branch on are types: *PathError,
// *RuleError, *DeniedError, *InputError, *PolicyError.
//
// Subpackage policytest generates random workspaces and policies for
// property tests.
package policy
