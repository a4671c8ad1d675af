// Package learn proposes the least access a tool needs: it runs a command
// observed, records what the command did to files and which TCP endpoints
// it connected to, and turns those observations into
// `conversation.tools.<tool>.access` rules in JP's own config language
// (docs/learn.md).
//
// Observation is ptrace driven by a seccomp filter (Linux only, no cgo, no
// root): the command is started through a small stub (a re-exec of the
// jp-policy binary) that sets no_new_privs, installs a filter answering
// SECCOMP_RET_TRACE for the file and connect system calls and RET_ALLOW
// for every other, and execs the command. The tracer then stops the
// command only at those calls, reads their arguments from the command's
// memory, resolves them against the calling thread's working directory or
// directory descriptor, and records each one that succeeded. A
// PTRACE_SYSCALL-only tracer would stop at every system call; the filter
// keeps reads, writes, futexes and mmaps of an ordinary build out of it.
//
// Learning is not a sandbox: the command runs with the user's own rights,
// as firejail's --build and aa-genprof run theirs. The user runs learn on
// a command they trust, and learn says so on stderr.
//
// The proposal (Propose) goes through package policy, the one evaluator:
// every observed access inside the workspace is checked against the
// proposed rules before they are printed, and a proposal that would not
// allow one of them is an error, never output.
package learn
