// Package launcher is `jp-policy exec`: one path, in order, for every run.
//
//  1. Load: find the workspace root, read the pin (outside the workspace)
//     and, through the hash chain it starts, the tool's exec plan, exec
//     file and manifest (Prepare, load.go).
//  2. Verify: every staleness input unchanged, no `.jp.*` layer added or
//     lost (VerifyCurrent); a stale artifact is rebuilt and run only when
//     it widens nothing (recompile.go), else refused.
//  3. Decide, once (Prepare): the program and whether the tool's commands
//     allow it (CheckCommand), the child's environment (FilterEnv), the
//     clauses this kernel cannot enforce (refused unless --best-effort),
//     fast or namespaced path. --dry-run renders this decision and stops.
//  4. Build the sandbox: the Landlock ruleset as kernel bits (sandboxFor,
//     buildRuleset: one builder for both paths), the seccomp program, the
//     private TMPDIR (with its bounded sweep).
//  5. Start: the fast path restricts the one OS thread that execs
//     (Landlock, no_new_privs, capabilities, seccomp: ExecLocked) and
//     replaces the launcher with the command; the namespaced path starts
//     nsroot's stage 2, a re-exec of this binary, which applies the same
//     sandbox on its exec thread (RestrictThread, stage2_linux.go).
//  6. Wait and report: afterExit, the one place for what happens once the
//     command is over (the namespaced path's status, a failed execve's
//     hint).
//
// Every step refuses the run on any error. macOS (sandbox-exec) and
// Windows (a job object) share steps 1 to 3.
package launcher
