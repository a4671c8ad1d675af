package nsroot

// finalize is the launcher's hook, run in stage 2 after the root is built.
var finalize func(*Spec) error

// SetFinalize registers the function stage 2 calls after building the
// root and dropping every capability (no_new_privs is set), on the OS
// thread that then execs the command, so thread-scoped restrictions
// (Landlock's restrict_self, a seccomp filter without TSYNC) carry over.
// It must be registered from an init function: stage 2 runs before main
// does anything else. An error aborts the run (fail closed).
func SetFinalize(f func(*Spec) error) { finalize = f }
