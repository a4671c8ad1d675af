// Package launcher owns `jp-policy exec`: it reads one tool's compiled
// manifest (refusing a stale artifact), decides the child's environment
// and whether the command is allowed, works out which policy clauses this
// kernel can enforce, and then replaces itself with the command under the
// platform sandbox — Landlock + no_new_privs on Linux (plus exact masks
// of narrowed paths in a private mount namespace when privileged),
// sandbox-exec on macOS, a job object on Windows.
//
// Everything up to the final exec is pure and platform-neutral (Prepare,
// Plan, the dry-run report, the argv/attribute builders for macOS and
// Windows), so it is tested on any OS; only the last step is per-platform.
//
// The exec path is kept lean on purpose: it decodes only the parts of
// policy.json it needs, never loads config layers or schemas, and on
// Linux restricts only the locked OS thread that calls execve (a Landlock
// domain and no_new_privs belong to the thread and survive execve), so it
// costs a handful of syscalls rather than a walk over every runtime thread.
package launcher
