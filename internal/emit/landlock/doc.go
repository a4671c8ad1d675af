// Package landlock builds the Linux manifest (internal/plan/landlock)
// from a bound tool: the mapping from RFD 076 capabilities to Landlock
// access rights, the split of broader grants around narrower rules so
// that the kernel never grants more than the policy, the named system
// baseline that lets ordinary programs start, TCP port rules, scopes, the
// environment allowlist, the namespace plan, and the minimum ABI of every
// clause.
package landlock
