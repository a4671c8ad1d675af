// Package landlock is the Linux manifest exec runs, as compile's emitter
// (internal/emit/landlock) writes it: path rules with their Landlock
// access rights, the system baseline, TCP ports, scopes, the environment
// allowlist, commands, the seccomp spec, and the namespace plan. It also
// holds what exec decides from a manifest alone, so that exec, explain
// and the dry run agree with compile: the rights and the ABI each needs
// (UsedABI, NeedABI) and the parts of a policy that only the namespaced
// path enforces exactly (NamespaceNeeds).
package landlock
